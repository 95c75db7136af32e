/* SPDX-License-Identifier: MIT */
/*
 * What the stream tests share: frames whose every byte is known, endpoints
 * with one tensor element, a producer's and a consumer's step with every
 * check on the way (fences, frame order, bytes), and a fixture.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <vdla/stream.h>

#include "submit_env.h"
#include "umd_test.h"

namespace umd_test {

constexpr uint32_t kFrameBytes = 4096;
constexpr auto kEventTimeout = std::chrono::seconds(20);

/* The byte at @i of frame @frame: differs from frame to frame and never 0. */
uint8_t frameByte(uint64_t frame, size_t i);
/* Where @data (kFrameBytes) differs from frame @frame, or -1. */
long firstWrong(const uint8_t *data, uint64_t frame);

/* A 4096-byte INT8 tensor [1,4,@height,32] (height 32: 4096 bytes), as @owner needs it. */
vdla::AttrList tensorElement(const std::string &owner, std::vector<vdla::Accessor> accessors,
	vdla::Permission permission, uint64_t height = 32);
/* An endpoint with one tensor element, used from the CPU. */
vdla::StreamEndpointConfig cpuEndpoint(
	const std::string &name, vdla::Permission permission, uint64_t height = 32);

/* The next event of @block is @type (an event before it fails). */
::testing::AssertionResult nextEventIs(vdla::StreamBlock &block, vdla::StreamEventType type);
/* Waits for @fences on the CPU; each must have signalled without error. */
::testing::AssertionResult waitAll(const std::vector<vdla::SyncFence> &fences);

/* Writes frame @frame into the packet's element from the CPU. */
vdla::Result<void> writeFrame(vdla::StreamPacket &packet, uint64_t frame);
/* The first byte of the packet's element that is not frame @frame's, -1 if none. */
long checkFrame(vdla::StreamPacket &packet, uint64_t frame);

/* The producer takes a packet, waits its fences, writes @frame, signals, presents. */
::testing::AssertionResult produce(
	vdla::StreamProducer &producer, uint64_t frame, uint32_t *id = nullptr);
/*
 * The consumer acquires the next packet: frame @frame, with one fence,
 * holding its bytes; then releases it with a fence of its own.
 */
::testing::AssertionResult consume(vdla::StreamConsumer &consumer, uint64_t frame);

class StreamTest : public UmdTest
{
protected:
	/* Every test starts from the driver's object counts... */
	void SetUp() override
	{
		UmdTest::SetUp();
		if (!HasFatalFailure())
			baseline_ = guest::objectCounts(guest::nodeIndex(node_));
	}
	/* ...and leaves nothing behind: its blocks, buffers and jobs are gone. */
	void TearDown() override
	{
		if (baseline_.empty())
			return;
		const int index = guest::nodeIndex(node_);
		std::map<std::string, long> now;
		EXPECT_TRUE(guest::waitUntil(
			[&] { return (now = guest::objectCounts(index)) == baseline_; }, 5000))
			<< "leaked: " << guest::describeCounts(baseline_) << "then "
			<< guest::describeCounts(now);
	}

	std::shared_ptr<vdla::StreamProducer> producer(
		uint32_t packets, const std::string &name = "camera")
	{
		auto pool = vdla::StreamPool::createStatic(*device_, packets);
		EXPECT_TRUE(succeeded(pool));
		auto p = vdla::StreamProducer::create(
			*pool, cpuEndpoint(name, vdla::Permission::ReadWrite));
		EXPECT_TRUE(succeeded(p));
		return p ? *p : nullptr;
	}

	std::shared_ptr<vdla::StreamConsumer> consumer(
		vdla::StreamQueueKind queue, const std::string &name, uint64_t height = 32)
	{
		auto c = vdla::StreamConsumer::create(
			*device_, queue, cpuEndpoint(name, vdla::Permission::ReadOnly, height));
		EXPECT_TRUE(succeeded(c));
		return c ? *c : nullptr;
	}

private:
	std::map<std::string, long> baseline_;
};

} /* namespace umd_test */
