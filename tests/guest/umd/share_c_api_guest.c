/* SPDX-License-Identifier: MIT */
/*
 * The C API of sharing on the driver, compiled as C: a buffer allocated
 * from a reconciled list, written on the CPU, sent read-only to a child
 * process with a CPU signaler's fence; the child cannot import it
 * read-write, waits for the fence and reads what was written. NULL when all
 * went well, else what failed (run by SharingTest.TheCApiSharesABuffer).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vdla/vdla_share.h>

#include "c_expect.h"

/* The child: 0, or the line that failed. */
static int consume(vdla_ipc_endpoint *ep)
{
	vdla_device *device = NULL;
	vdla_shared_buffer *buffer = NULL;
	vdla_sync_fence *fence = NULL;
	struct vdla_fence_status status;
	unsigned char *data = NULL;
	if (vdla_device_open_index(0, &device))
		return __LINE__;
	vdla_attr_list *needs = vdla_attr_list_create("consumer");
	const enum vdla_buffer_type raw = VDLA_BUFFER_RAW;
	if (vdla_attr_list_set_types(needs, &raw, 1) || vdla_attr_list_set_raw_size(needs, 4096))
		return __LINE__;
	if (vdla_shared_buffer_import(ep, device, VDLA_PERMISSION_READ_WRITE, 5000, needs, &buffer)
		!= -EACCES)
		return __LINE__;
	if (vdla_shared_buffer_import(ep, device, VDLA_PERMISSION_READ_ONLY, 5000, needs, &buffer))
		return __LINE__;
	vdla_attr_list_free(needs);
	if (vdla_shared_buffer_permission(buffer) != VDLA_PERMISSION_READ_ONLY)
		return __LINE__;
	if (vdla_sync_fence_import(ep, 5000, &fence))
		return __LINE__;
	if (vdla_sync_fence_wait(fence, 5000000000ll, &status) || !status.signalled
		|| status.error || !status.timestamp_ns)
		return __LINE__;
	if (vdla_shared_buffer_begin_cpu_access(buffer, VDLA_CPU_WRITE) != -EACCES)
		return __LINE__;
	if (vdla_shared_buffer_begin_cpu_access(buffer, VDLA_CPU_READ)
		|| vdla_shared_buffer_map(buffer, (void **)&data))
		return __LINE__;
	for (int i = 0; i < 4096; i++)
		if (data[i] != (unsigned char)(i * 13))
			return __LINE__;
	vdla_shared_buffer_end_cpu_access(buffer, VDLA_CPU_READ);
	vdla_sync_fence_free(fence);
	vdla_shared_buffer_free(buffer);
	vdla_device_free(device);
	return 0;
}

const char *share_c_api_guest(void)
{
	vdla_device *device = NULL;
	EXPECT(vdla_device_open_index(0, &device) == 0);
	EXPECT(vdla_device_open_index(99, &device) == -ENODEV);

	vdla_attr_list *list = vdla_attr_list_create("producer");
	const enum vdla_buffer_type raw = VDLA_BUFFER_RAW;
	const struct vdla_accessor cpu = { VDLA_ACCESSOR_CPU, 0, NULL };
	EXPECT(vdla_attr_list_set_types(list, &raw, 1) == 0);
	EXPECT(vdla_attr_list_set_raw_size(list, 4096) == 0);
	EXPECT(vdla_attr_list_set_accessors(list, &cpu, 1) == 0);
	EXPECT(vdla_attr_list_set_required_permission(list, VDLA_PERMISSION_READ_WRITE) == 0);
	const vdla_attr_list *lists[] = { list };
	vdla_attr_list *reconciled = NULL;
	char *conflicts = NULL;
	EXPECT(vdla_reconcile(lists, 1, "pipeline", &reconciled, &conflicts) == 0);
	vdla_shared_buffer *buffer = NULL;
	EXPECT(vdla_shared_buffer_allocate(device, reconciled, &buffer) == 0);
	EXPECT(vdla_shared_buffer_size(buffer) >= 4096);
	unsigned char *data = NULL;
	EXPECT(vdla_shared_buffer_map(buffer, (void **)&data) == 0);
	for (int i = 0; i < 4096; i++)
		data[i] = (unsigned char)(i * 13);

	vdla_sync_attr_list *signaler = vdla_sync_attr_list_create("producer");
	vdla_sync_attr_list *waiter = vdla_sync_attr_list_create("consumer");
	EXPECT(vdla_sync_attr_list_set_required_permission(signaler, VDLA_SYNC_SIGNAL_ONLY) == 0);
	EXPECT(vdla_sync_attr_list_set_accessor(signaler, cpu) == 0);
	EXPECT(vdla_sync_attr_list_set_required_permission(waiter, VDLA_SYNC_WAIT_ONLY) == 0);
	EXPECT(vdla_sync_attr_list_set_accessor(waiter, cpu) == 0);
	const vdla_sync_attr_list *syncs[] = { signaler, waiter };
	vdla_sync_attr_list *sync_list = NULL;
	EXPECT(vdla_sync_reconcile(syncs, 2, "pipeline", &sync_list, &conflicts) == 0);
	vdla_sync_object *sync = NULL;
	EXPECT(vdla_sync_object_allocate(device, sync_list, &sync) == 0);

	vdla_ipc_endpoint *parent = NULL, *child = NULL;
	EXPECT(vdla_ipc_pair(&parent, &child) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		vdla_ipc_endpoint_free(parent);
		_exit(consume(child) ? 1 : 0);
	}
	vdla_ipc_endpoint_free(child);
	/* Twice: the child asks read-write first, which it is refused. */
	EXPECT(vdla_shared_buffer_export(buffer, parent, VDLA_PERMISSION_READ_ONLY) == 0);
	EXPECT(vdla_shared_buffer_export(buffer, parent, VDLA_PERMISSION_READ_ONLY) == 0);
	const uint64_t point = vdla_sync_object_next_point(sync);
	EXPECT(vdla_sync_object_export_fence(sync, parent, point) == -EINVAL);
	EXPECT(vdla_sync_object_signal(sync, point) == 0);
	EXPECT(vdla_sync_object_export_fence(sync, parent, point) == 0);
	int status = 0;
	EXPECT(waitpid(pid, &status, 0) == pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	vdla_ipc_endpoint_free(parent);
	vdla_sync_object_free(sync);
	vdla_sync_attr_list_free(sync_list);
	vdla_sync_attr_list_free(waiter);
	vdla_sync_attr_list_free(signaler);
	vdla_shared_buffer_free(buffer);
	vdla_attr_list_free(reconciled);
	vdla_attr_list_free(list);
	vdla_device_free(device);
	return NULL;
}
