// SPDX-License-Identifier: Apache-2.0
// Boost.JSON, header-only: its definitions are compiled here, once for the whole library.
#include <boost/json/src.hpp>
