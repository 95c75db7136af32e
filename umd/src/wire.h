/* SPDX-License-Identifier: MIT */
/*
 * The byte format of what crosses processes (attribute lists, sync lists,
 * IPC messages): little-endian integers, strings and arrays prefixed by
 * their length. The Reader never trusts its input: every read is bounds
 * checked and a short or malformed input makes it fail, sticky, so a
 * decoder checks once at the end.
 */
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace vdla::wire {

class Writer
{
public:
	void u8(uint8_t value) { bytes_.push_back(value); }
	void u32(uint32_t value) { put(value, 4); }
	void u64(uint64_t value) { put(value, 8); }
	void f64(double value)
	{
		uint64_t bits;
		std::memcpy(&bits, &value, sizeof(bits));
		u64(bits);
	}
	void str(const std::string &value)
	{
		u32(static_cast<uint32_t>(value.size()));
		bytes_.insert(bytes_.end(), value.begin(), value.end());
	}
	void u64s(const std::vector<uint64_t> &values)
	{
		u32(static_cast<uint32_t>(values.size()));
		for (uint64_t v : values)
			u64(v);
	}

	/* Bytes of another encoder's, with their length. */
	void blob(const std::vector<uint8_t> &value)
	{
		u32(static_cast<uint32_t>(value.size()));
		bytes_.insert(bytes_.end(), value.begin(), value.end());
	}
	std::vector<uint8_t> take() { return std::move(bytes_); }

private:
	void put(uint64_t value, int bytes)
	{
		for (int i = 0; i < bytes; i++)
			bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
	}

	std::vector<uint8_t> bytes_;
};

class Reader
{
public:
	/* The most elements an array or bytes a string may claim. */
	static constexpr uint32_t kMaxCount = 4096;

	Reader(const uint8_t *data, size_t size)
		: data_(data), size_(size)
	{
	}

	uint8_t u8() { return static_cast<uint8_t>(get(1)); }
	uint32_t u32() { return static_cast<uint32_t>(get(4)); }
	uint64_t u64() { return get(8); }
	double f64()
	{
		uint64_t bits = u64();
		double value;
		std::memcpy(&value, &bits, sizeof(value));
		return value;
	}
	std::string str()
	{
		uint32_t n = count(1);
		std::string value(reinterpret_cast<const char *>(data_ + pos_), n);
		pos_ += n;
		return value;
	}
	/* What Writer::blob() wrote: any length the input holds. */
	std::vector<uint8_t> blob()
	{
		const uint32_t n = u32();
		if (!ok_ || n > size_ - pos_) {
			ok_ = false;
			return {};
		}
		std::vector<uint8_t> value(data_ + pos_, data_ + pos_ + n);
		pos_ += n;
		return value;
	}
	std::vector<uint64_t> u64s()
	{
		uint32_t n = count(8);
		std::vector<uint64_t> values(n);
		for (uint32_t i = 0; i < n; i++)
			values[i] = u64();
		return values;
	}

	/* Whether every read so far was within the input. */
	bool ok() const { return ok_; }
	/* Whether the whole input was read, and nothing failed. */
	bool done() const { return ok_ && pos_ == size_; }
	/* Marks the input malformed (a decoder's own check failed). */
	void fail() { ok_ = false; }

private:
	uint64_t get(int bytes)
	{
		if (!ok_ || size_ - pos_ < static_cast<size_t>(bytes)) {
			ok_ = false;
			return 0;
		}
		uint64_t value = 0;
		for (int i = 0; i < bytes; i++)
			value |= uint64_t(data_[pos_ + i]) << (8 * i);
		pos_ += bytes;
		return value;
	}

	/* A length prefix, checked against the limit and what is left. */
	uint32_t count(size_t elementSize)
	{
		uint32_t n = u32();
		if (!ok_ || n > kMaxCount || n * elementSize > size_ - pos_) {
			ok_ = false;
			return 0;
		}
		return n;
	}

	const uint8_t *data_;
	size_t size_;
	size_t pos_ = 0;
	bool ok_ = true;
};

} /* namespace vdla::wire */
