// SPDX-License-Identifier: Apache-2.0
// The parts of service_instance.hpp that are not JSON: service type names, UriSpec templates,
// the error category.
#include <zkcoord/service_instance.hpp>

namespace zkcoord {
namespace {

const char* service_json_message(service_json_errc e) {
  switch (e) {
    case service_json_errc::not_json:
      return "service instance data is not JSON";
    case service_json_errc::too_deep:
      return "service instance JSON is nested too deeply";
    case service_json_errc::not_an_object:
      return "service instance JSON is not an object";
    case service_json_errc::wrong_type:
      return "service instance JSON field has the wrong type";
    case service_json_errc::out_of_range:
      return "service instance JSON number out of range";
    case service_json_errc::unknown_service_type:
      return "service instance JSON names no Curator ServiceType";
    case service_json_errc::bad_payload:
      return "service instance payload is not one JSON value";
    case service_json_errc::invalid_utf8:
      return "service instance field is not valid UTF-8";
  }
  return "unknown service instance JSON error";
}

class service_json_category_impl : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "zkcoord.service_json"; }
  std::string message(int ev) const override {
    return service_json_message(static_cast<service_json_errc>(ev));
  }
  // Data that does not decode will not decode on a retry either.
  bool equivalent(int, const boost::system::error_condition& cond) const noexcept override {
    return cond == make_error_condition(condition::permanent);
  }
};

}  // namespace

const boost::system::error_category& service_json_category() noexcept {
  static const service_json_category_impl instance;
  return instance;
}

error_code make_error_code(service_json_errc e) noexcept {
  return {static_cast<int>(e), service_json_category()};
}

const char* to_string(service_type type) noexcept {
  switch (type) {
    case service_type::dynamic:
      return "DYNAMIC";
    case service_type::static_:
      return "STATIC";
    case service_type::permanent:
      return "PERMANENT";
    case service_type::dynamic_sequential:
      return "DYNAMIC_SEQUENTIAL";
  }
  return "DYNAMIC";
}

std::optional<uri_spec> parse_uri_spec(std::string_view template_text) {
  uri_spec spec;
  std::string text;
  bool inside_variable = false;
  const auto flush = [&](bool variable) {
    if (!text.empty()) spec.parts.push_back({std::move(text), variable});
    text.clear();
  };
  for (const char c : template_text) {
    if (c == '{') {
      if (inside_variable) return std::nullopt;
      flush(false);
      inside_variable = true;
    } else if (c == '}') {
      if (!inside_variable) return std::nullopt;
      flush(true);
      inside_variable = false;
    } else {
      text += c;
    }
  }
  if (inside_variable) return std::nullopt;
  flush(false);
  return spec;
}

}  // namespace zkcoord
