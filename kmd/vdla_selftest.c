// SPDX-License-Identifier: GPL-2.0-only
/*
 * DRM_IOCTL_VDLA_TEST_BDMA: an end-to-end test of the data path before
 * SUBMIT existed, kept as a bring-up check. The caller's pages are pinned and
 * mapped into a device address space of their own (vdla_mmu.c), bound to
 * MMU slot 0 (reserved for it), and a one-operation BDMA task runs
 * through the firmware core with the MMU on while the scheduler is paused.
 */
#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <linux/capability.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/vdla_accel.h>
#include <drm/vdla_task.h>

#include "dla_interface.h"
#include "vdla_fw_port.h"

#include "vdla_device.h"
#include "vdla_mmu.h"
#include "vdla_sched.h"
#include "vdla_selftest.h"

#define SELFTEST_TIMEOUT_MS	5000

/* A user buffer pinned, mapped for the device, and mapped in @as. */
struct selftest_buffer {
	struct page **pages;
	unsigned int npages;
	struct sg_table sgt;
	bool dma_mapped;
	struct drm_mm_node node;
	bool write;
	u64 va;
};

static struct device *dev_of(struct vdla_device *vdev)
{
	return &vdev->pdev->dev;
}

static void unpin_buffer(struct vdla_device *vdev, struct vdla_as *as,
			 struct selftest_buffer *buf)
{
	if (drm_mm_node_allocated(&buf->node))
		vdla_as_unmap(as, &buf->node);
	if (buf->dma_mapped)
		dma_unmap_sgtable(dev_of(vdev), &buf->sgt, DMA_BIDIRECTIONAL, 0);
	sg_free_table(&buf->sgt);
	if (buf->npages)
		unpin_user_pages_dirty_lock(buf->pages, buf->npages, buf->write);
	kvfree(buf->pages);
	memset(buf, 0, sizeof(*buf));
}

static int pin_buffer(struct vdla_device *vdev, struct vdla_as *as, u64 uaddr, u32 size,
		      bool write, struct selftest_buffer *buf)
{
	unsigned long offset = uaddr & ~PAGE_MASK;
	unsigned int npages = DIV_ROUND_UP(offset + size, PAGE_SIZE);
	int pinned, ret;

	memset(buf, 0, sizeof(*buf));
	buf->write = write;
	buf->pages = kvmalloc_array(npages, sizeof(*buf->pages), GFP_KERNEL);
	if (!buf->pages)
		return -ENOMEM;
	pinned = pin_user_pages_fast(uaddr & PAGE_MASK, npages, write ? FOLL_WRITE : 0,
				     buf->pages);
	if (pinned != npages) {
		if (pinned > 0)
			unpin_user_pages(buf->pages, pinned);
		unpin_buffer(vdev, as, buf);
		return pinned < 0 ? pinned : -EFAULT;
	}
	buf->npages = npages;

	ret = sg_alloc_table_from_pages(&buf->sgt, buf->pages, npages, 0,
					(size_t)npages << PAGE_SHIFT, GFP_KERNEL);
	if (!ret)
		ret = dma_map_sgtable(dev_of(vdev), &buf->sgt, DMA_BIDIRECTIONAL, 0);
	if (!ret) {
		buf->dma_mapped = true;
		ret = vdla_as_map(as, &buf->node, (u64)npages << PAGE_SHIFT, &buf->sgt, write);
	}
	if (ret) {
		unpin_buffer(vdev, as, buf);
		return ret;
	}
	buf->va = buf->node.start + offset;
	return 0;
}

/* Address-list entries of the self-test task. */
enum { ADDR_DESCRIPTOR, ADDR_SRC, ADDR_DST, ADDRESSES };

/* A task of one BDMA operation, as userspace will write them for SUBMIT. */
struct selftest_task {
	struct vdla_task_header header;
	struct vdla_task_op op;
};

static void build_task(struct selftest_task *t, u32 size)
{
	memset(t, 0, sizeof(*t));
	t->header.magic = VDLA_TASK_MAGIC;
	t->header.version_major = VDLA_TASK_VERSION_MAJOR;
	t->header.version_minor = VDLA_TASK_VERSION_MINOR;
	t->header.num_ops = 1;
	t->header.ops_offset = offsetof(struct selftest_task, op);
	t->op.engine = VDLA_TASK_ENGINE_BDMA;
	t->op.fused_parent = VDLA_NO_OP;
	for (int i = 0; i < VDLA_TASK_MAX_CONSUMERS; i++)
		t->op.consumers[i].index = VDLA_NO_OP;
	t->op.bdma.src.index = ADDR_SRC;
	t->op.bdma.dst.index = ADDR_DST;
	t->op.bdma.line_bytes = size;
	t->op.bdma.lines = 1;
	t->op.bdma.surfaces = 1;
}

static void read_result(struct vdla_device *vdev, struct drm_vdla_test_bdma *args)
{
	struct dla_task_result result;
	struct dla_op_stats stats;

	dla_get_task_result(vdev->fw_engine, &result);
	args->hw_error = result.status == DLA_ERR_HARDWARE ? result.hw_error : 0;
	args->fault_status = result.fault_status;
	args->fault_addr = result.fault_addr;
	args->device_ns = 0;
	if (!dla_op_statistics(vdev->fw_engine, 0, &stats))
		args->device_ns = stats.device_ns;
}

/* Runs the copy as a firmware task; called with fw_lock held. */
static int run_task(struct vdla_device *vdev, const struct selftest_buffer *src,
		    const struct selftest_buffer *dst, struct drm_vdla_test_bdma *args)
{
	struct vdla_fw_buffer buffers[ADDRESSES];
	struct vdla_fw_task fw_task = { buffers, ADDRESSES };
	struct dla_task_config config = {};
	struct selftest_task *t;
	void *state;
	long left;
	int ret;

	t = kmalloc(sizeof(*t), GFP_KERNEL);
	state = kvzalloc(dla_task_state_size(1), GFP_KERNEL);
	if (!t || !state) {
		ret = -ENOMEM;
		goto out;
	}
	build_task(t, args->size);
	buffers[ADDR_DESCRIPTOR] = (struct vdla_fw_buffer){ t, 0, sizeof(*t) };
	buffers[ADDR_SRC] = (struct vdla_fw_buffer){ NULL, src->va, args->size };
	buffers[ADDR_DST] = (struct vdla_fw_buffer){ NULL, dst->va, args->size };
	config.task_data = &fw_task;
	config.flags = DLA_TASK_STATISTICS;
	config.num_addresses = ADDRESSES;
	config.descriptor = ADDR_DESCRIPTOR;
	config.context = VDLA_MMU_SELFTEST_SLOT;
	config.state = state;
	config.state_size = dla_task_state_size(1);

	reinit_completion(&vdev->selftest_done);
	mutex_lock(&vdev->fw_lock);
	vdev->selftest_running = true;
	ret = dla_execute_task(vdev->fw_engine, &config);
	if (ret) {
		dla_clear_task(vdev->fw_engine);
		vdev->selftest_running = false;
	}
	mutex_unlock(&vdev->fw_lock);
	if (ret) {
		drm_err(&vdev->drm, "TEST_BDMA: the firmware refused the task: %d\n", ret);
		ret = -EINVAL;
		goto out;
	}

	left = wait_for_completion_killable_timeout(&vdev->selftest_done,
						    msecs_to_jiffies(SELFTEST_TIMEOUT_MS));
	mutex_lock(&vdev->fw_lock);
	if (left <= 0) {
		/* The device may still use the pages: stop it before unpinning. */
		drm_err(&vdev->drm, "TEST_BDMA: %s; aborting the task\n",
			left ? "interrupted" : "no completion within 5 s");
		dla_abort_task(vdev->fw_engine);
		vdla_mmu_restore(vdev);
		ret = left ? (int)left : -ETIMEDOUT;
	} else {
		read_result(vdev, args);
		ret = args->hw_error ? -EIO : 0;
		/* A failed task reset the device. */
		if (ret)
			vdla_mmu_restore(vdev);
	}
	dla_clear_task(vdev->fw_engine);
	vdev->selftest_running = false;
	mutex_unlock(&vdev->fw_lock);
out:
	kvfree(state);
	kfree(t);
	return ret;
}

static int run_copy(struct vdla_device *vdev, struct drm_vdla_test_bdma *args)
{
	bool dst_writable = !(args->flags & DRM_VDLA_TEST_BDMA_FLAG_DST_READ_ONLY);
	struct selftest_buffer src, dst;
	struct vdla_as *as;
	int ret;

	as = vdla_as_create(vdev);
	if (!as)
		return -ENOMEM;
	ret = pin_buffer(vdev, as, args->src, args->size, false, &src);
	if (ret)
		goto out_as;
	/* Pinned for reading only when the device may not write it. */
	ret = pin_buffer(vdev, as, args->dst, args->size, dst_writable, &dst);
	if (ret)
		goto out_src;

	args->src_va = src.va;
	args->dst_va = dst.va;
	/* The device is the self-test's until unpaused: no job starts. */
	ret = vdla_sched_pause(vdev);
	if (ret)
		goto out_dst;
	mutex_lock(&vdev->fw_lock);
	vdla_mmu_set_selftest(vdev, vdla_as_table(as));
	mutex_unlock(&vdev->fw_lock);
	ret = run_task(vdev, &src, &dst, args);
	mutex_lock(&vdev->fw_lock);
	vdla_mmu_set_selftest(vdev, 0);
	mutex_unlock(&vdev->fw_lock);
	vdla_sched_unpause(vdev);
out_dst:
	unpin_buffer(vdev, as, &dst);
out_src:
	unpin_buffer(vdev, as, &src);
out_as:
	vdla_as_put(as);
	return ret;
}

int vdla_selftest_init(struct vdla_device *vdev)
{
	init_completion(&vdev->selftest_done);
	return drmm_mutex_init(&vdev->drm, &vdev->selftest_lock);
}

static int check_args(struct vdla_device *vdev, const struct drm_vdla_test_bdma *args)
{
	if (args->flags & ~DRM_VDLA_TEST_BDMA_FLAGS) {
		drm_dbg(&vdev->drm, "TEST_BDMA: unknown flags 0x%x\n",
			args->flags & ~DRM_VDLA_TEST_BDMA_FLAGS);
		return -EINVAL;
	}
	if (!args->size || args->size > DRM_VDLA_TEST_BDMA_MAX_SIZE) {
		drm_dbg(&vdev->drm, "TEST_BDMA: size %u outside 1..%u\n", args->size,
			DRM_VDLA_TEST_BDMA_MAX_SIZE);
		return -EINVAL;
	}
	if (args->src < args->dst + args->size && args->dst < args->src + args->size) {
		drm_dbg(&vdev->drm, "TEST_BDMA: source and destination overlap\n");
		return -EINVAL;
	}
	return 0;
}

int vdla_ioctl_test_bdma(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vdla_device *vdev = to_vdla_device(drm);
	struct drm_vdla_test_bdma *args = data;
	int ret, idx;

	BUILD_BUG_ON(PAGE_SIZE != VDLA_PAGE_SIZE);
	/* It pauses the dispatcher for up to seconds: administrators only. */
	if (!capable(CAP_SYS_ADMIN)) {
		drm_dbg(drm, "TEST_BDMA: needs CAP_SYS_ADMIN\n");
		return -EACCES;
	}
	ret = check_args(vdev, args);
	if (ret)
		return ret;
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = mutex_lock_interruptible(&vdev->selftest_lock);
	if (!ret) {
		ret = run_copy(vdev, args);
		mutex_unlock(&vdev->selftest_lock);
	}
	drm_dev_exit(idx);
	return ret;
}
