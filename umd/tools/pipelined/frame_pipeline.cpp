/* SPDX-License-Identifier: MIT */
#include "frame_pipeline.h"

#include <sys/ioctl.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <drm/vdla_accel.h>
#include <vdla/fence.h>
#include <vdla/task_builder.h>

#include "frame_format.h"

using namespace std::chrono_literals;

namespace pipelined {

namespace {

/* The channels, in the order they are built, with their attributes' names by key. */
const std::map<std::string, std::vector<std::string>> kChannels = {
	{ "producer", { "frames", "dropped" } },
	{ "inference", { "scale", "shift" } },
	{ "output", {} },
};

void log(const std::string &text)
{
	std::fprintf(stderr, "vdla-pipelined: %s\n", text.c_str());
}

/*
 * The owner's TAKE and RETURN of its own output buffer, by the ioctl: the
 * daemon fills the buffer through the Buffer it attached, under the handle
 * the kernel gives back (DRM_VDLA_PORT_TAKEN_OWN), not through a new one.
 */
int portOp(vdla::Device &device, uint32_t pipeline, uint32_t channel, uint32_t op,
	   uint32_t *index)
{
	drm_vdla_port_buffer args = {};
	args.pipeline = pipeline;
	args.channel_id = channel;
	args.op = op;
	args.index = *index;
	int ret;
	do {
		ret = ::ioctl(device.fd(), DRM_IOCTL_VDLA_PORT_BUFFER, &args);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return errno;
	*index = args.index;
	return 0;
}

} /* namespace */

int attributeKey(const std::string &channel, const std::string &name)
{
	auto it = kChannels.find(channel);
	if (it == kChannels.end())
		return -1;
	for (size_t key = 0; key < it->second.size(); key++) {
		if (it->second[key] == name)
			return int(key);
	}
	return -1;
}

FramePipeline::FramePipeline(vdla::Device &device, const Config &config)
	: device_(device), config_(config), resources_(device)
{
}

FramePipeline::~FramePipeline()
{
	/* Channels before their pipeline, leases before their manager. */
	channels_.clear();
	if (pipeline_)
		pipeline_->destroy(true);
	pipeline_.reset();
	sramLease_.reset();
	engineLease_.reset();
}

vdla::Result<std::unique_ptr<FramePipeline>> FramePipeline::build(vdla::Device &device,
								  const std::string &node,
								  const Config &config)
{
	std::unique_ptr<FramePipeline> p(new FramePipeline(device, config));
	auto context = vdla::Context::create(device, vdla::Priority::Normal);
	if (!context)
		return context.error();
	p->context_ = std::move(*context);
	auto leased = p->leaseResources(node);
	if (!leased)
		return leased.error();

	auto input = vdla::Buffer::create(device, kResultBytes);
	if (!input)
		return input.error();
	p->input_ = std::move(*input);
	auto staging = p->sramLease_ ? vdla::Buffer::create(device, kResultBytes, *p->sramLease_)
				     : vdla::Buffer::create(device, kResultBytes);
	if (!staging)
		return staging.error();
	p->staging_ = std::move(*staging);

	auto pipeline = vdla::Pipeline::create(device, config.pipeline, config.params);
	if (!pipeline)
		return pipeline.error();
	p->pipeline_ = std::move(*pipeline);
	auto exit = p->pipeline_->setExitAction(config.exit);
	if (!exit)
		return exit.error();
	vdla::ChannelAttributes producer{}, inference{};
	inference[0] = uint64_t(config.scale);
	inference[1] = config.shift;
	for (const auto &[name, attrs] : { std::pair{ "producer", producer },
					    std::pair{ "inference", inference },
					    std::pair{ "output", vdla::ChannelAttributes{} } }) {
		auto made = p->createChannel(name, attrs);
		if (!made)
			return made.error();
	}
	auto attached = p->attachOutputs();
	if (!attached)
		return attached.error();
	return p;
}

vdla::Result<void> FramePipeline::leaseResources(const std::string &node)
{
	if (!config_.engineReservation.empty()) {
		vdla::LeaseRequest request;
		request.resource = vdla::LeaseResource::Engine;
		request.index = uint32_t(engineIndex(config_.engineReservation));
		request.timeout = 5s;
		auto lease = resources_.acquire(*context_, request);
		if (!lease)
			return vdla::Error(lease.error().code(), "reserving the " +
						config_.engineReservation + " engine: " + lease.error().reason());
		engineLease_ = std::move(*lease);
	}
	if (config_.sramPartition.empty())
		return {};

	std::string name = config_.sramPartition.substr(0, config_.sramPartition.find(':'));
	std::string bytes = config_.sramPartition.substr(name.size() + 1);
	auto parts = vdla::sramPartitions(device_);
	if (!parts)
		return parts.error();
	int index = -1;
	std::string defined;
	for (size_t i = 0; i < parts->size(); i++) {
		const vdla::SramPartition &part = (*parts)[i];
		if (part.name == name)
			index = int(i);
		defined += part.name + ":" + std::to_string(part.size) + ",";
	}
	if (index < 0) {
		/* Defined next to the partitions there are, which keep their indices. */
		std::string path = "/sys/class/accel/" + node.substr(node.rfind('/') + 1) +
				   "/device/sram_partitions";
		std::ofstream out(path);
		out << defined << name << ":" << bytes << std::flush;
		if (!out)
			return vdla::Error(EINVAL, "cannot define the SRAM partition " +
							   config_.sramPartition + " in " + path);
		index = int(parts->size());
	}
	vdla::LeaseRequest request;
	request.index = uint32_t(index);
	request.timeout = 5s;
	auto lease = resources_.acquire(*context_, request);
	if (!lease)
		return vdla::Error(lease.error().code(),
				   "leasing the SRAM partition " + name + ": " + lease.error().reason());
	sramLease_ = std::move(*lease);
	return {};
}

vdla::Result<void> FramePipeline::createChannel(const std::string &name,
						const vdla::ChannelAttributes &attrs)
{
	auto channel = vdla::Channel::create(*pipeline_, attrs, context_.get());
	if (!channel)
		return vdla::Error(channel.error().code(),
				   "channel " + name + ": " + channel.error().reason());
	channels_[name] = std::move(*channel);
	return {};
}

vdla::Result<void> FramePipeline::attachOutputs()
{
	if (outputs_.empty()) {
		for (unsigned i = 0; i < config_.outputBuffers; i++) {
			auto buffer = vdla::Buffer::create(device_, kFrameBytes);
			if (!buffer)
				return buffer.error();
			outputs_.push_back(std::move(*buffer));
		}
	}
	for (auto &buffer : outputs_) {
		auto attached = channels_["output"]->attach(0, *buffer, true);
		if (!attached)
			return attached.error();
	}
	return {};
}

vdla::Result<void> FramePipeline::runInference(uint32_t index, int32_t scale, uint32_t shift)
{
	vdla::TaskBuilder builder;
	uint16_t in = builder.addBuffer(*input_);
	uint16_t mid = builder.addBuffer(*staging_, vdla::BufferUse::Write);
	uint16_t out = builder.addBuffer(*outputs_[index], vdla::BufferUse::Write);
	uint16_t copy = builder.copy({ in, 0 }, { mid, 0 }, kResultBytes);
	vdla::SdpOp sdp;
	sdp.src = vdla::Tensor::nchw(mid, 0, vdla::DataType::Int8, 1, 16, 16, 16);
	sdp.dst = vdla::Tensor::nchw(out, 0, vdla::DataType::Int8, 1, 16, 16, 16);
	sdp.scaleMode = vdla::SdpMode::PerTensor;
	sdp.scaleMul = scale;
	sdp.scaleShift = shift;
	sdp.activation = vdla::SdpActivation::Relu;
	builder.link(copy, builder.sdp(sdp));
	auto task = builder.build(device_);
	if (!task)
		return task.error();
	auto done = vdla::Fence::create(device_);
	if (!done)
		return done.error();
	vdla::SubmitOptions options;
	options.lease = sramLease_.get();
	auto seqno = context_->submitWithOptions(*task, {}, { done->get() }, options);
	if (!seqno)
		return seqno.error();
	auto waited = (*done)->wait(5s);
	if (!waited)
		return waited.error();
	auto status = (*done)->status();
	if (!status)
		return status.error();
	if (status->error)
		return vdla::Error(status->error, "the inference job failed");
	return {};
}

void FramePipeline::produce()
{
	for (const char *name : { "producer", "inference" }) {
		auto state = channels_[name]->state();
		if (!state || *state != vdla::ChannelState::Started)
			return;
	}
	auto scale = channels_["inference"]->attribute(0);
	auto shift = channels_["inference"]->attribute(1);
	int32_t s = scale && *scale >= 1 && *scale <= 127 ? int32_t(*scale) : config_.scale;
	uint32_t sh = shift && *shift <= 7 ? uint32_t(*shift) : config_.shift;

	uint32_t output = channels_["output"]->id(), index = 0;
	int ret = portOp(device_, pipeline_->handle(), output, DRM_VDLA_PORT_OP_TAKE, &index);
	if (ret) {
		/* Every buffer is with an application (EAGAIN): the frame is dropped. */
		if (ret != EAGAIN)
			log("taking an output buffer: " + std::string(std::strerror(ret)));
		channels_["producer"]->setAttribute(1, ++dropped_);
		return;
	}
	uint8_t *in = *input_->map();
	for (uint32_t i = 0; i < kResultBytes; i++)
		in[i] = uint8_t(frameInput(frames_, i));
	auto ran = runInference(index, s, sh);
	if (ran) {
		FrameHeader header = { kFrameMagic, sh, frames_, s, 0 };
		auto mapped = outputs_[index]->map();
		if (mapped)
			std::memcpy(*mapped + kHeaderOffset, &header, sizeof(header));
		channels_["producer"]->setAttribute(0, ++frames_);
		warnedFailure_ = false;
	} else {
		if (!warnedFailure_)
			log("frame " + std::to_string(frames_) + ": " + ran.error().message());
		warnedFailure_ = true;
		channels_["producer"]->setAttribute(1, ++dropped_);
	}
	portOp(device_, pipeline_->handle(), output, DRM_VDLA_PORT_OP_RETURN, &index);
}

std::string FramePipeline::status() const
{
	std::ostringstream out;
	auto query = pipeline_->query();
	if (query) {
		out << "pipeline " << query->name << " owner " << query->owner.toString()
		    << " references " << query->references << " exit_runs " << query->exitRuns
		    << "\n";
	}
	for (const auto &[name, keys] : kChannels) {
		const auto &channel = channels_.at(name);
		auto state = channel->state();
		out << "channel " << name << " id " << channel->id() << " "
		    << (state && *state == vdla::ChannelState::Started ? "started" : "stopped");
		for (size_t key = 0; key < keys.size(); key++) {
			auto value = channel->attribute(uint32_t(key));
			out << " " << keys[key] << "=" << (value ? std::to_string(*value) : "?");
		}
		out << "\n";
	}
	return out.str();
}

vdla::Result<void> FramePipeline::rebuild(const std::string &name,
					  const std::vector<std::string> &changes)
{
	auto it = channels_.find(name);
	if (it == channels_.end())
		return vdla::Error(ENOENT, "no channel " + name + " (producer, inference, output)");
	vdla::ChannelAttributes attrs{};
	for (uint32_t key = 0; key < attrs.size(); key++) {
		auto value = it->second->attribute(key);
		attrs[key] = value ? *value : 0;
	}
	for (const std::string &change : changes) {
		size_t equals = change.find('=');
		int key = attributeKey(name, change.substr(0, equals));
		if (equals == std::string::npos || key < 0 ||
		    change.find_first_not_of("0123456789", equals + 1) != std::string::npos ||
		    equals + 1 == change.size())
			return vdla::Error(EINVAL, "'" + change + "' is not attribute=number of " + name);
		attrs[uint32_t(key)] = std::stoull(change.substr(equals + 1));
	}
	it->second.reset();
	auto made = createChannel(name, attrs);
	if (!made)
		return made;
	if (name == "output") {
		/* New buffers: the old channel may live on for a duplicate, lending the old ones. */
		outputs_.clear();
		return attachOutputs();
	}
	return {};
}

vdla::Result<void> FramePipeline::setStarted(const std::string &name, bool started)
{
	auto it = channels_.find(name);
	if (it == channels_.end())
		return vdla::Error(ENOENT, "no channel " + name + " (producer, inference, output)");
	return started ? it->second->start() : it->second->stop();
}

void FramePipeline::restartChannels()
{
	for (auto &[name, channel] : channels_) {
		auto started = channel->start();
		if (!started)
			log("starting channel " + name + ": " + started.error().message());
	}
}

} /* namespace pipelined */
