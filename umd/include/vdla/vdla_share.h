/* SPDX-License-Identifier: MIT */
/*
 * The C API of libvdla's sharing (docs/sharing.md, "C API"): attribute and
 * sync lists, their reconciliation, IPC endpoints, shared buffers, sync
 * objects and fences, for C programs. Each object is a handle the caller
 * frees with its _free function. Every function that can fail returns 0 or
 * a negative errno, and vdla_last_error() gives the reason in words (per
 * thread, until the next failing call). Handles passed in must be valid
 * (NULL only where a function says so); enum values out of range are
 * -EINVAL; memory running out is -ENOMEM (NULL from the _create
 * functions): no C++ exception ever reaches the caller.
 */
#ifndef VDLA_SHARE_H
#define VDLA_SHARE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values as the C++ enums of vdla/attr_list.h and vdla/sync.h. */
enum vdla_buffer_type {
	VDLA_BUFFER_RAW,
	VDLA_BUFFER_TENSOR,
	VDLA_BUFFER_IMAGE,
	VDLA_BUFFER_IMAGE_PYRAMID,
	VDLA_BUFFER_ARRAY,
};
enum vdla_permission { VDLA_PERMISSION_READ_ONLY, VDLA_PERMISSION_READ_WRITE };
enum vdla_memory_domain { VDLA_MEMORY_SYSTEM, VDLA_MEMORY_SRAM };
enum vdla_tensor_data_type {
	VDLA_TENSOR_INT8,
	VDLA_TENSOR_UINT8,
	VDLA_TENSOR_INT16,
	VDLA_TENSOR_FLOAT16,
	VDLA_TENSOR_FLOAT32,
};
enum vdla_tensor_layout { VDLA_LAYOUT_NCHW, VDLA_LAYOUT_NHWC };
enum vdla_color_format {
	VDLA_COLOR_U8,
	VDLA_COLOR_U16,
	VDLA_COLOR_F16,
	VDLA_COLOR_F32,
	VDLA_COLOR_UV88,
	VDLA_COLOR_RGB888,
	VDLA_COLOR_RGBA8888,
	VDLA_COLOR_RGBA_F16,
};
enum vdla_sync_permission {
	VDLA_SYNC_WAIT_ONLY,
	VDLA_SYNC_SIGNAL_ONLY,
	VDLA_SYNC_WAIT_SIGNAL,
};
enum vdla_cpu_access { VDLA_CPU_READ, VDLA_CPU_WRITE, VDLA_CPU_READ_WRITE };

/* An accessor: the CPU, vDLA number @device, or another engine by @name. */
struct vdla_accessor {
	enum { VDLA_ACCESSOR_CPU, VDLA_ACCESSOR_DLA, VDLA_ACCESSOR_OTHER } kind;
	uint32_t device;
	const char *name;
};

/* How a fence ended: signalled, its errno (0: success), when (CLOCK_MONOTONIC). */
struct vdla_fence_status {
	int signalled;
	int error;
	uint64_t timestamp_ns;
};

struct vdla_plane_layout {
	uint64_t width, height, pitch, offset;
};

typedef struct vdla_device vdla_device;
typedef struct vdla_attr_list vdla_attr_list;
typedef struct vdla_sync_attr_list vdla_sync_attr_list;
typedef struct vdla_ipc_endpoint vdla_ipc_endpoint;
typedef struct vdla_ipc_listener vdla_ipc_listener;
typedef struct vdla_shared_buffer vdla_shared_buffer;
typedef struct vdla_sync_object vdla_sync_object;
typedef struct vdla_sync_fence vdla_sync_fence;

/* The reason of this thread's last failure ("" if none). */
const char *vdla_last_error(void);

/*
 * Devices: @node such as "/dev/accel/accel0"; @index as a vdla_accessor
 * numbers it (the N of /dev/accel/accelN; -ENODEV when there is none).
 */
int vdla_device_open(const char *node, vdla_device **device);
int vdla_device_open_index(uint32_t index, vdla_device **device);
void vdla_device_free(vdla_device *device);

/* ---- Attribute lists ---- */
vdla_attr_list *vdla_attr_list_create(const char *owner);
void vdla_attr_list_free(vdla_attr_list *list);
int vdla_attr_list_reconciled(const vdla_attr_list *list);

int vdla_attr_list_set_types(vdla_attr_list *list, const enum vdla_buffer_type *types, size_t count);
int vdla_attr_list_set_need_cpu_access(vdla_attr_list *list, int need);
int vdla_attr_list_set_required_permission(vdla_attr_list *list, enum vdla_permission permission);
int vdla_attr_list_set_enable_cpu_cache(vdla_attr_list *list, int enable);
int vdla_attr_list_set_accessors(vdla_attr_list *list, const struct vdla_accessor *accessors,
	size_t count);
int vdla_attr_list_set_memory_domain(vdla_attr_list *list, enum vdla_memory_domain preferred,
	int fallback_allowed);
int vdla_attr_list_set_raw_size(vdla_attr_list *list, uint64_t bytes);
int vdla_attr_list_set_raw_alignment(vdla_attr_list *list, uint64_t bytes);
int vdla_attr_list_set_tensor_data_type(vdla_attr_list *list, enum vdla_tensor_data_type type);
int vdla_attr_list_set_tensor_dims(vdla_attr_list *list, const uint64_t *dims, size_t count);
int vdla_attr_list_set_tensor_layout(vdla_attr_list *list, enum vdla_tensor_layout layout);
int vdla_attr_list_set_tensor_alignment_per_dim(vdla_attr_list *list, const uint64_t *alignment,
	size_t count);
int vdla_attr_list_set_tensor_base_alignment(vdla_attr_list *list, uint64_t bytes);
int vdla_attr_list_set_tensor_quantization(vdla_attr_list *list, double scale, int32_t zero_point);
int vdla_attr_list_set_image_plane_formats(vdla_attr_list *list,
	const enum vdla_color_format *formats, size_t count);
int vdla_attr_list_set_image_plane_widths(vdla_attr_list *list, const uint64_t *widths,
	size_t count);
int vdla_attr_list_set_image_plane_heights(vdla_attr_list *list, const uint64_t *heights,
	size_t count);
int vdla_attr_list_set_image_plane_base_alignment(vdla_attr_list *list,
	const uint64_t *alignment, size_t count);
int vdla_attr_list_set_image_pitch_alignment(vdla_attr_list *list, const uint64_t *alignment,
	size_t count);
int vdla_attr_list_set_pyramid_levels(vdla_attr_list *list, uint32_t levels);
int vdla_attr_list_set_pyramid_scale(vdla_attr_list *list, double scale);
int vdla_attr_list_set_array_element_size(vdla_attr_list *list, uint64_t bytes);
int vdla_attr_list_set_array_capacity(vdla_attr_list *list, uint64_t capacity);
int vdla_attr_list_set_array_stride_alignment(vdla_attr_list *list, uint64_t bytes);

/*
 * Outputs of a reconciled list (-ENOENT while not there). Arrays: @count in
 * is the room, out the number (-ENOSPC, with the number, if it is more).
 */
int vdla_attr_list_get_size(const vdla_attr_list *list, uint64_t *bytes);
int vdla_attr_list_get_alignment(const vdla_attr_list *list, uint64_t *bytes);
int vdla_attr_list_get_actual_permission(const vdla_attr_list *list,
	enum vdla_permission *permission);
int vdla_attr_list_get_memory_domain(const vdla_attr_list *list,
	enum vdla_memory_domain *domain);
/* Why SRAM was not used though preferred: "" otherwise. Owned by @list. */
const char *vdla_attr_list_memory_domain_reason(const vdla_attr_list *list);
int vdla_attr_list_get_tensor_strides(const vdla_attr_list *list, uint64_t *strides,
	size_t *count);
int vdla_attr_list_get_image_planes(const vdla_attr_list *list,
	struct vdla_plane_layout *planes, size_t *count);
int vdla_attr_list_get_array_stride(const vdla_attr_list *list, uint64_t *bytes);

/*
 * Reconciles @count lists into *@reconciled, owned by @owner: 0. When keys
 * conflict it returns 1, *@reconciled NULL and *@conflicts a malloc'd
 * text, one conflict per line (free() it); *@conflicts is NULL otherwise.
 * Errors: -EINVAL (no list, a NULL or a reconciled one).
 */
int vdla_reconcile(const vdla_attr_list *const *lists, size_t count, const char *owner,
	vdla_attr_list **reconciled, char **conflicts);

/* ---- IPC ---- */
int vdla_ipc_pair(vdla_ipc_endpoint **first, vdla_ipc_endpoint **second);
int vdla_ipc_connect(const char *path, vdla_ipc_endpoint **endpoint);
int vdla_ipc_listen(const char *path, vdla_ipc_listener **listener);
int vdla_ipc_accept(vdla_ipc_listener *listener, int64_t timeout_ms,
	vdla_ipc_endpoint **endpoint);
void vdla_ipc_endpoint_free(vdla_ipc_endpoint *endpoint);
void vdla_ipc_listener_free(vdla_ipc_listener *listener);
/* The peer's process id, as the kernel saw it at connection. */
int vdla_ipc_peer_pid(const vdla_ipc_endpoint *endpoint);

int vdla_attr_list_send(vdla_ipc_endpoint *endpoint, const vdla_attr_list *list);
int vdla_attr_list_receive(vdla_ipc_endpoint *endpoint, int64_t timeout_ms,
	vdla_attr_list **list);

/* ---- Shared buffers ---- */
int vdla_shared_buffer_allocate(vdla_device *device, const vdla_attr_list *reconciled,
	vdla_shared_buffer **buffer);
/* @needs (NULL: none): this party's own list, which the buffer must serve. */
int vdla_shared_buffer_import(vdla_ipc_endpoint *endpoint, vdla_device *device,
	enum vdla_permission permission, int64_t timeout_ms, const vdla_attr_list *needs,
	vdla_shared_buffer **buffer);
int vdla_shared_buffer_export(const vdla_shared_buffer *buffer, vdla_ipc_endpoint *endpoint,
	enum vdla_permission permission);
int vdla_shared_buffer_duplicate(const vdla_shared_buffer *buffer,
	enum vdla_permission permission, vdla_shared_buffer **copy);
void vdla_shared_buffer_free(vdla_shared_buffer *buffer);
enum vdla_permission vdla_shared_buffer_permission(const vdla_shared_buffer *buffer);
/* The buffer's GEM handle in its device's file, and its size. */
uint32_t vdla_shared_buffer_handle(const vdla_shared_buffer *buffer);
uint64_t vdla_shared_buffer_size(const vdla_shared_buffer *buffer);
int vdla_shared_buffer_map(vdla_shared_buffer *buffer, void **data);
int vdla_shared_buffer_begin_cpu_access(vdla_shared_buffer *buffer, enum vdla_cpu_access access);
int vdla_shared_buffer_end_cpu_access(vdla_shared_buffer *buffer, enum vdla_cpu_access access);

/* ---- Sync ---- */
vdla_sync_attr_list *vdla_sync_attr_list_create(const char *owner);
void vdla_sync_attr_list_free(vdla_sync_attr_list *list);
int vdla_sync_attr_list_set_required_permission(vdla_sync_attr_list *list,
	enum vdla_sync_permission permission);
int vdla_sync_attr_list_set_accessor(vdla_sync_attr_list *list, struct vdla_accessor accessor);
int vdla_sync_attr_list_set_need_cpu_wait(vdla_sync_attr_list *list, int need);
int vdla_sync_attr_list_set_require_timestamps(vdla_sync_attr_list *list, int require);
/* As vdla_reconcile(). */
int vdla_sync_reconcile(const vdla_sync_attr_list *const *lists, size_t count, const char *owner,
	vdla_sync_attr_list **reconciled, char **conflicts);
int vdla_sync_attr_list_send(vdla_ipc_endpoint *endpoint, const vdla_sync_attr_list *list);
int vdla_sync_attr_list_receive(vdla_ipc_endpoint *endpoint, int64_t timeout_ms,
	vdla_sync_attr_list **list);

int vdla_sync_object_allocate(vdla_device *device, const vdla_sync_attr_list *reconciled,
	vdla_sync_object **object);
void vdla_sync_object_free(vdla_sync_object *object);
/* The timeline syncobj's handle in the device's file, for SUBMIT's out-sync. */
uint32_t vdla_sync_object_timeline_handle(const vdla_sync_object *object);
uint64_t vdla_sync_object_next_point(vdla_sync_object *object);
int vdla_sync_object_signal(vdla_sync_object *object, uint64_t point);
int vdla_sync_object_export_fence(const vdla_sync_object *object, vdla_ipc_endpoint *endpoint,
	uint64_t point);

int vdla_sync_fence_import(vdla_ipc_endpoint *endpoint, int64_t timeout_ms,
	vdla_sync_fence **fence);
void vdla_sync_fence_free(vdla_sync_fence *fence);
uint64_t vdla_sync_fence_point(const vdla_sync_fence *fence);
/* The sync file, owned by the fence: poll() it, or import it into a syncobj. */
int vdla_sync_fence_fd(const vdla_sync_fence *fence);
int vdla_sync_fence_wait(const vdla_sync_fence *fence, int64_t timeout_ns,
	struct vdla_fence_status *status);

#ifdef __cplusplus
}
#endif

#endif /* VDLA_SHARE_H */
