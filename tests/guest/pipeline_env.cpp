/* SPDX-License-Identifier: MIT */
#include "pipeline_env.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "submit_env.h"

namespace guest {

/* Copies @name into @out; one of 32 characters or more is left unterminated, for the tests of it. */
static void copyName(char (&out)[DRM_VDLA_PIPELINE_NAME_LEN], const std::string &name)
{
	std::memset(out, 0, sizeof(out));
	std::memcpy(out, name.data(), std::min(name.size(), sizeof(out)));
}

int pipelineCreate(int fd, const std::string &name, const PipelineParams &params,
		   uint32_t *handle, drm_vdla_owner *who)
{
	drm_vdla_pipeline_create args = {};
	copyName(args.name, name);
	std::memcpy(args.params, params.data(), sizeof(args.params));
	int ret = ioctlError(fd, DRM_IOCTL_VDLA_PIPELINE_CREATE, &args);
	if (handle)
		*handle = args.handle;
	if (who)
		*who = args.owner;
	return ret;
}

int pipelineOpen(int fd, const std::string &name, drm_vdla_pipeline_open *args)
{
	copyName(args->name, name);
	return ioctlError(fd, DRM_IOCTL_VDLA_PIPELINE_OPEN, args);
}

int pipelineOpen(int fd, const std::string &name, uint32_t *handle)
{
	drm_vdla_pipeline_open args = {};
	int ret = pipelineOpen(fd, name, &args);
	*handle = args.handle;
	return ret;
}

int pipelineDestroy(int fd, uint32_t handle, uint32_t flags, drm_vdla_pipeline_destroy *out)
{
	drm_vdla_pipeline_destroy args = {};
	args.handle = handle;
	args.flags = flags;
	int ret = ioctlError(fd, DRM_IOCTL_VDLA_PIPELINE_DESTROY, &args);
	if (out)
		*out = args;
	return ret;
}

int pipelineClose(int fd, uint32_t handle)
{
	drm_vdla_pipeline_close args = {};
	args.handle = handle;
	return ioctlError(fd, DRM_IOCTL_VDLA_PIPELINE_CLOSE, &args);
}

int pipelineQuery(int fd, uint32_t handle, drm_vdla_pipeline_query *out)
{
	*out = {};
	out->handle = handle;
	return ioctlError(fd, DRM_IOCTL_VDLA_PIPELINE_QUERY, out);
}

int pipelineSetExit(int fd, uint32_t handle, uint32_t actions, uint64_t userData,
		    drm_vdla_owner *who)
{
	drm_vdla_pipeline_set_exit args = {};
	args.handle = handle;
	args.actions = actions;
	args.user_data = userData;
	int ret = ioctlError(fd, DRM_IOCTL_VDLA_PIPELINE_SET_EXIT, &args);
	if (who)
		*who = args.owner;
	return ret;
}

int channelCreate(int fd, uint32_t pipeline, uint32_t ctx, const ChannelAttrs &attrs,
		  uint32_t *id)
{
	drm_vdla_channel_create args = {};
	args.pipeline = pipeline;
	args.ctx_id = ctx;
	std::memcpy(args.attrs, attrs.data(), sizeof(args.attrs));
	int ret = ioctlError(fd, DRM_IOCTL_VDLA_CHANNEL_CREATE, &args);
	if (!ret)
		*id = args.channel_id;
	return ret;
}

int channelDup(int fd, uint32_t pipeline, uint32_t id, drm_vdla_owner *who)
{
	drm_vdla_channel_dup args = {};
	args.pipeline = pipeline;
	args.channel_id = id;
	int ret = ioctlError(fd, DRM_IOCTL_VDLA_CHANNEL_DUP, &args);
	if (who)
		*who = args.owner;
	return ret;
}

int channelDestroy(int fd, uint32_t pipeline, uint32_t id, drm_vdla_owner *who)
{
	drm_vdla_channel_destroy args = {};
	args.pipeline = pipeline;
	args.channel_id = id;
	int ret = ioctlError(fd, DRM_IOCTL_VDLA_CHANNEL_DESTROY, &args);
	if (who)
		*who = args.owner;
	return ret;
}

int channelAttr(int fd, uint32_t pipeline, uint32_t id, uint32_t op, uint32_t key,
		uint64_t *value, uint32_t *state)
{
	drm_vdla_channel_attr args = {};
	args.pipeline = pipeline;
	args.channel_id = id;
	args.op = op;
	args.key = key;
	if (value)
		args.value = *value;
	int ret = ioctlError(fd, DRM_IOCTL_VDLA_CHANNEL_ATTR, &args);
	if (value && op == DRM_VDLA_CHANNEL_ATTR_OP_GET)
		*value = args.value;
	if (state)
		*state = args.state;
	return ret;
}

uint64_t channelAttribute(int fd, uint32_t pipeline, uint32_t id, uint32_t key)
{
	uint64_t value = 0;
	if (channelAttr(fd, pipeline, id, DRM_VDLA_CHANNEL_ATTR_OP_GET, key, &value))
		return ~0ull;
	return value;
}

uint32_t channelState(int fd, uint32_t pipeline, uint32_t id)
{
	uint64_t value = 0;
	uint32_t state = 0;
	if (channelAttr(fd, pipeline, id, DRM_VDLA_CHANNEL_ATTR_OP_GET, 0, &value, &state))
		return 0;
	return state;
}

static int portOp(int fd, drm_vdla_port_buffer *args)
{
	return ioctlError(fd, DRM_IOCTL_VDLA_PORT_BUFFER, args);
}

int portAttach(int fd, uint32_t pipeline, uint32_t channel, uint32_t port, uint32_t bo,
	       uint32_t flags, uint32_t *index, drm_vdla_owner *who)
{
	drm_vdla_port_buffer args = {};
	args.pipeline = pipeline;
	args.channel_id = channel;
	args.port = port;
	args.op = DRM_VDLA_PORT_OP_ATTACH;
	args.flags = flags;
	args.handle = bo;
	int ret = portOp(fd, &args);
	if (index)
		*index = args.index;
	if (who)
		*who = args.owner;
	return ret;
}

int portTake(int fd, uint32_t pipeline, uint32_t channel, uint32_t port, uint32_t *handle,
	     uint32_t *index)
{
	drm_vdla_port_buffer args = {};
	args.pipeline = pipeline;
	args.channel_id = channel;
	args.port = port;
	args.op = DRM_VDLA_PORT_OP_TAKE;
	int ret = portOp(fd, &args);
	*handle = args.handle;
	if (index)
		*index = args.index;
	return ret;
}

int portReturn(int fd, uint32_t pipeline, uint32_t channel, uint32_t port, uint32_t index,
	       drm_vdla_owner *who)
{
	drm_vdla_port_buffer args = {};
	args.pipeline = pipeline;
	args.channel_id = channel;
	args.port = port;
	args.op = DRM_VDLA_PORT_OP_RETURN;
	args.index = index;
	int ret = portOp(fd, &args);
	if (who)
		*who = args.owner;
	return ret;
}

std::vector<drm_vdla_event_pipeline> readPipelineEvents(int fd, int timeoutMs)
{
	std::vector<drm_vdla_event_pipeline> events;
	for (const auto &raw : readDrmEvents(fd, timeoutMs, DRM_VDLA_EVENT_PIPELINE_IDLE,
					     DRM_VDLA_EVENT_PIPELINE_GONE,
					     sizeof(drm_vdla_event_pipeline))) {
		events.emplace_back();
		std::memcpy(&events.back(), raw.data(), sizeof(drm_vdla_event_pipeline));
	}
	return events;
}

bool waitPipelineEvent(int fd, uint32_t type, int timeoutMs, drm_vdla_event_pipeline *event)
{
	int64_t end = monotonicNs() + int64_t(timeoutMs) * 1000000;
	for (;;) {
		int64_t left = (end - monotonicNs()) / 1000000;
		if (left < 0)
			return false;
		for (const drm_vdla_event_pipeline &e : readPipelineEvents(fd, int(left))) {
			if (e.base.type == type) {
				if (event)
					*event = e;
				return true;
			}
		}
	}
}

} /* namespace guest */
