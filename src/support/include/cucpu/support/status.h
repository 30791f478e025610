// Status and Expected<T>: a CUresult code (as an int, so that this module needs no cuda.h) plus
// a human-readable message.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace cucpu {

class Status {
public:
  Status() = default;
  Status(int code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return {}; }

  bool isOk() const { return code_ == 0; }
  explicit operator bool() const { return isOk(); }
  int code() const { return code_; }
  const std::string &message() const { return message_; }

private:
  int code_ = 0;
  std::string message_;
};

template <typename T> class Expected {
public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Status error) : v_(std::move(error)) {}

  bool hasValue() const { return v_.index() == 0; }
  explicit operator bool() const { return hasValue(); }
  T &operator*() { return std::get<0>(v_); }
  T *operator->() { return &std::get<0>(v_); }
  const Status &error() const { return std::get<1>(v_); }

private:
  std::variant<T, Status> v_;
};

} // namespace cucpu
