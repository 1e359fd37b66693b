//===- perfbound/sdk/json_assert.hpp - nlohmann's checks as exceptions ----===//
//
// nlohmann::json guards its preconditions with JSON_ASSERT, which defaults
// to assert(): a debug build aborts, a release build (NDEBUG) goes on with
// undefined behaviour. The commonest case is reading a missing member through
// the const operator[] (`doc["key"]` on a const json): in a release build that
// dereferences the end iterator. One input that lacks a member a reader took
// for granted must give an error, never a crash or a wrong number, so every
// perfbound translation unit defines JSON_ASSERT to throw std::logic_error
// instead (the build force-includes this header; the SDK's json.hpp includes
// it before nlohmann's header, so out-of-tree plugins get it too when they
// include the SDK first). The plugin SDK's exception barrier turns the
// exception into PB_ERR_INTERNAL with the message; the host reports it.
//
// Inside nlohmann's noexcept functions (its invariant checks) a failed check
// still ends the process, as assert() would, but in every build type.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_SDK_JSON_ASSERT_HPP
#define PERFBOUND_SDK_JSON_ASSERT_HPP

#ifdef __cplusplus
#include <stdexcept>
#include <string>

namespace pb::sdk::detail {

[[noreturn]] inline void json_check_failed(const char *condition) {
  throw std::logic_error(std::string("internal error: a JSON document was read where it has no such value "
                                     "(nlohmann::json check failed: ") +
                         condition + ")");
}

}  // namespace pb::sdk::detail

#ifndef JSON_ASSERT
#define JSON_ASSERT(condition) \
  ((condition) ? static_cast<void>(0) : ::pb::sdk::detail::json_check_failed(#condition))
#endif

#endif  // __cplusplus
#endif  // PERFBOUND_SDK_JSON_ASSERT_HPP
