// SPDX-License-Identifier: Apache-2.0
// Boost.JSON's implementation, header-only from Boost itself (no libboost_json to link): in
// this one file of the tool.
#include <boost/json/src.hpp>
