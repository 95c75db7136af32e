/* SPDX-License-Identifier: MIT */
/*
 * The pipeline vdla-pipelined builds and runs (docs/ownership.md, "The
 * daemon"): a producer channel that makes a frame each period, an
 * inference channel whose DLA job (BDMA into SRAM, SDP out of it) turns
 * it into a result, and an output channel whose port 0 lends the results
 * read-only to applications. The daemon owns all of it; applications
 * attach to it.
 */
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <vdla/buffer.h>
#include <vdla/context.h>
#include <vdla/device.h>
#include <vdla/lease.h>
#include <vdla/pipeline.h>

#include "config.h"

namespace pipelined {

class FramePipeline
{
public:
	/* Leases what @config names, creates the pipeline and its channels. */
	/* @node is the device's /dev/accel/accelN, for its sysfs directory. */
	static vdla::Result<std::unique_ptr<FramePipeline>> build(vdla::Device &device,
								   const std::string &node,
								   const Config &config);
	~FramePipeline();

	vdla::Pipeline &pipeline() { return *pipeline_; }
	vdla::ResourceManager &resources() { return resources_; }

	/*
	 * Makes one frame, if the producer and inference channels are
	 * started: takes a free output buffer (the owner's take), runs the
	 * inference into it and gives it back for applications to take. A
	 * frame with no buffer free is dropped and counted.
	 */
	void produce();

	/* The pipeline and its channels, a line each (the status command). */
	std::string status() const;
	/*
	 * Destroys @channel and creates it again with its attributes changed
	 * by @changes ("scale=5"): what needs a destroy and re-create. A
	 * duplicate an application holds keeps the old channel alive for it.
	 */
	vdla::Result<void> rebuild(const std::string &channel, const std::vector<std::string> &changes);
	vdla::Result<void> setStarted(const std::string &channel, bool started);
	/* After the exit action stopped them: every channel started again. */
	void restartChannels();

private:
	FramePipeline(vdla::Device &device, const Config &config);
	vdla::Result<void> leaseResources(const std::string &node);
	vdla::Result<void> createChannel(const std::string &name, const vdla::ChannelAttributes &attrs);
	vdla::Result<void> attachOutputs();
	vdla::Result<void> runInference(uint32_t index, int32_t scale, uint32_t shift);

	vdla::Device &device_;
	Config config_;
	vdla::ResourceManager resources_;
	std::unique_ptr<vdla::Context> context_;
	std::unique_ptr<vdla::Lease> sramLease_, engineLease_;
	std::unique_ptr<vdla::Buffer> input_, staging_;
	std::vector<std::unique_ptr<vdla::Buffer>> outputs_;
	std::unique_ptr<vdla::Pipeline> pipeline_;
	std::map<std::string, std::unique_ptr<vdla::Channel>> channels_;
	uint64_t frames_ = 0, dropped_ = 0;
	bool warnedFailure_ = false;
};

/* The attribute keys of a channel of the pipeline ("scale" of "inference" is 0). */
int attributeKey(const std::string &channel, const std::string &name);

} /* namespace pipelined */
