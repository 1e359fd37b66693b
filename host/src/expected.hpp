//===- expected.hpp - Expected<T>: a value or an error message ------------===//
//
// Library code returns errors as values (LLVM's habit); exceptions are kept
// for programmer errors and never cross the plugin ABI.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_EXPECTED_HPP
#define PERFBOUND_HOST_EXPECTED_HPP

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace perfbound {

/// An error message, already phrased for the user ("file:line: what").
struct Error {
  std::string message;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : storage_(std::move(value)) {}           // NOLINT(google-explicit-constructor)
  Expected(Error error) : storage_(std::move(error)) {}       // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(storage_); }
  explicit operator bool() const { return ok(); }

  T &value() & {
    assert(ok());
    return std::get<T>(storage_);
  }
  const T &value() const & {
    assert(ok());
    return std::get<T>(storage_);
  }
  T &&value() && {
    assert(ok());
    return std::get<T>(std::move(storage_));
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  [[nodiscard]] const Error &error() const {
    assert(!ok());
    return std::get<Error>(storage_);
  }

 private:
  std::variant<T, Error> storage_;
};

/// Expected<void> equivalent.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT(google-explicit-constructor)
  static Status success() { return {}; }
  [[nodiscard]] bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] const Error &error() const { return error_; }

 private:
  Error error_;
  bool failed_ = false;
};

}  // namespace perfbound

#endif  // PERFBOUND_HOST_EXPECTED_HPP
