/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the pipeline, channel and port ioctls (driver 1.12,
 * docs/ownership.md): each runs its ioctl once and returns the errno, with
 * the owner the driver reports on EPERM and EEXIST where asked for.
 */
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <drm/vdla_accel.h>

namespace guest {

using PipelineParams = std::array<uint32_t, DRM_VDLA_PIPELINE_PARAMS>;
using ChannelAttrs = std::array<uint64_t, DRM_VDLA_CHANNEL_ATTRS>;

int pipelineCreate(int fd, const std::string &name, const PipelineParams &params,
		   uint32_t *handle, drm_vdla_owner *who = nullptr);
/* OPEN of @name with @args' params and flags; @args is filled in. */
int pipelineOpen(int fd, const std::string &name, drm_vdla_pipeline_open *args);
/* OPEN with the default parameters (all 0) and no flags; the handle in @handle. */
int pipelineOpen(int fd, const std::string &name, uint32_t *handle);
int pipelineDestroy(int fd, uint32_t handle, uint32_t flags = 0,
		    drm_vdla_pipeline_destroy *out = nullptr);
int pipelineClose(int fd, uint32_t handle);
int pipelineQuery(int fd, uint32_t handle, drm_vdla_pipeline_query *out);
int pipelineSetExit(int fd, uint32_t handle, uint32_t actions, uint64_t userData = 0,
		    drm_vdla_owner *who = nullptr);

/* The new channel's id in @id, left alone on failure. */
int channelCreate(int fd, uint32_t pipeline, uint32_t ctx, const ChannelAttrs &attrs,
		  uint32_t *id);
int channelDup(int fd, uint32_t pipeline, uint32_t id, drm_vdla_owner *who = nullptr);
int channelDestroy(int fd, uint32_t pipeline, uint32_t id, drm_vdla_owner *who = nullptr);
/* CHANNEL_ATTR @op on @key: @value in (SET) or out (GET), the state in @state. */
int channelAttr(int fd, uint32_t pipeline, uint32_t id, uint32_t op, uint32_t key = 0,
		uint64_t *value = nullptr, uint32_t *state = nullptr);
/* A channel's attribute @key, or ~0 if GET failed. */
uint64_t channelAttribute(int fd, uint32_t pipeline, uint32_t id, uint32_t key);
/* A channel's DRM_VDLA_CHANNEL_STATE_*, or 0 if GET failed. */
uint32_t channelState(int fd, uint32_t pipeline, uint32_t id);

int portAttach(int fd, uint32_t pipeline, uint32_t channel, uint32_t port, uint32_t bo,
	       uint32_t flags = 0, uint32_t *index = nullptr, drm_vdla_owner *who = nullptr);
/* TAKE: the new handle and the buffer's index. */
int portTake(int fd, uint32_t pipeline, uint32_t channel, uint32_t port, uint32_t *handle,
	     uint32_t *index);
int portReturn(int fd, uint32_t pipeline, uint32_t channel, uint32_t port, uint32_t index,
	       drm_vdla_owner *who = nullptr);

/* The pipeline events read from @fd within @timeoutMs (others are dropped). */
std::vector<drm_vdla_event_pipeline> readPipelineEvents(int fd, int timeoutMs);
bool waitPipelineEvent(int fd, uint32_t type, int timeoutMs,
		       drm_vdla_event_pipeline *event = nullptr);

} /* namespace guest */
