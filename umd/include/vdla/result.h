/* SPDX-License-Identifier: MIT */
/*
 * Errors as values: every fallible libvdla call returns a Result carrying
 * either its value or an Error with an errno and a reason a person can read.
 */
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace vdla {

class Error
{
public:
	Error(int code, std::string reason)
		: code_(code), reason_(std::move(reason))
	{
	}

	/* A positive errno value. */
	int code() const { return code_; }
	/* What went wrong, in words, without the errno text. */
	const std::string &reason() const { return reason_; }
	/* "reason: strerror(code)". */
	std::string message() const;

private:
	int code_;
	std::string reason_;
};

template<typename T>
class Result
{
public:
	Result(T value)
		: state_(std::in_place_index<0>, std::move(value))
	{
	}
	Result(Error error)
		: state_(std::in_place_index<1>, std::move(error))
	{
	}

	bool ok() const { return state_.index() == 0; }
	explicit operator bool() const { return ok(); }

	T &value() & { return std::get<0>(state_); }
	const T &value() const & { return std::get<0>(state_); }
	T &&value() && { return std::get<0>(std::move(state_)); }
	T &operator*() & { return value(); }
	const T &operator*() const & { return value(); }
	T *operator->() { return &value(); }
	const T *operator->() const { return &value(); }

	const Error &error() const { return std::get<1>(state_); }

private:
	std::variant<T, Error> state_;
};

template<>
class Result<void>
{
public:
	Result() = default;
	Result(Error error)
		: error_(std::move(error)), ok_(false)
	{
	}

	bool ok() const { return ok_; }
	explicit operator bool() const { return ok_; }
	const Error &error() const { return error_; }

private:
	Error error_{ 0, "" };
	bool ok_ = true;
};

} /* namespace vdla */
