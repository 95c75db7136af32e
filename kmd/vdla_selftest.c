// SPDX-License-Identifier: GPL-2.0-only
/*
 * DRM_IOCTL_VDLA_TEST_BDMA: an end-to-end test of the data path before the
 * firmware core and SUBMIT exist. The caller's pages are pinned and mapped
 * into MMU context 0 through page tables built here, and the BDMA engine
 * copies between them with the MMU on.
 *
 * Device virtual layout: the source at 2 MiB, the destination at 4 MiB,
 * each covered by one level-2 table (at most 512 pages).
 */
#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/vdla_accel.h>

#include "vdla_device.h"
#include "vdla_selftest.h"

#define SELFTEST_CONTEXT	0
#define SELFTEST_SRC_VA		(2ull << 20)
#define SELFTEST_DST_VA		(4ull << 20)
#define SELFTEST_TIMEOUT_MS	5000
#define SELFTEST_TABLES		4	/* level 0, level 1, level 2 for src and dst */

struct selftest_buffer {
	struct page **pages;
	dma_addr_t *dma;
	unsigned int npages;
	bool write;
	u64 va;
};

struct selftest_tables {
	__le64 *cpu[SELFTEST_TABLES];
	dma_addr_t dma[SELFTEST_TABLES];
};

static struct device *dev_of(struct vdla_device *vdev)
{
	return &vdev->pdev->dev;
}

static void unpin_buffer(struct vdla_device *vdev, struct selftest_buffer *buf)
{
	for (unsigned int i = 0; i < buf->npages; i++)
		dma_unmap_page(dev_of(vdev), buf->dma[i], PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (buf->pages)
		unpin_user_pages_dirty_lock(buf->pages, buf->npages, buf->write);
	kvfree(buf->dma);
	kvfree(buf->pages);
	memset(buf, 0, sizeof(*buf));
}

static int pin_buffer(struct vdla_device *vdev, u64 uaddr, u32 size, bool write, u64 va_base,
		      struct selftest_buffer *buf)
{
	unsigned long offset = uaddr & ~PAGE_MASK;
	unsigned int npages = DIV_ROUND_UP(offset + size, PAGE_SIZE);
	int pinned;

	memset(buf, 0, sizeof(*buf));
	buf->write = write;
	buf->va = va_base + offset;
	buf->pages = kvmalloc_array(npages, sizeof(*buf->pages), GFP_KERNEL);
	buf->dma = kvmalloc_array(npages, sizeof(*buf->dma), GFP_KERNEL);
	if (!buf->pages || !buf->dma) {
		unpin_buffer(vdev, buf);
		return -ENOMEM;
	}

	pinned = pin_user_pages_fast(uaddr & PAGE_MASK, npages, write ? FOLL_WRITE : 0,
				     buf->pages);
	if (pinned != npages) {
		if (pinned > 0)
			unpin_user_pages(buf->pages, pinned);
		kvfree(buf->pages);
		buf->pages = NULL;
		unpin_buffer(vdev, buf);
		return pinned < 0 ? pinned : -EFAULT;
	}

	for (unsigned int i = 0; i < npages; i++) {
		buf->dma[i] = dma_map_page(dev_of(vdev), buf->pages[i], 0, PAGE_SIZE,
					   DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev_of(vdev), buf->dma[i])) {
			buf->npages = i;
			unpin_buffer(vdev, buf);
			return -ENOMEM;
		}
		buf->npages = i + 1;
	}
	return 0;
}

static void free_tables(struct vdla_device *vdev, struct selftest_tables *t)
{
	for (int i = 0; i < SELFTEST_TABLES; i++) {
		if (t->cpu[i])
			dma_free_coherent(dev_of(vdev), VDLA_PAGE_SIZE, t->cpu[i], t->dma[i]);
	}
}

static void fill_leaf(__le64 *table, const struct selftest_buffer *buf, bool writable)
{
	u64 perms = VDLA_PTE_VALID | VDLA_PTE_READ | (writable ? VDLA_PTE_WRITE : 0);

	for (unsigned int i = 0; i < buf->npages; i++)
		table[i] = cpu_to_le64((buf->dma[i] & VDLA_PTE_ADDR_MASK) | perms);
}

static int build_tables(struct vdla_device *vdev, const struct selftest_buffer *src,
			const struct selftest_buffer *dst, bool dst_writable,
			struct selftest_tables *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < SELFTEST_TABLES; i++) {
		t->cpu[i] = dma_alloc_coherent(dev_of(vdev), VDLA_PAGE_SIZE, &t->dma[i],
					       GFP_KERNEL);
		if (!t->cpu[i]) {
			free_tables(vdev, t);
			return -ENOMEM;
		}
	}
	/* Both ranges are below 1 GiB: level-0 entry 0; level-1 entries 1, 2. */
	t->cpu[0][0] = cpu_to_le64(t->dma[1] | VDLA_PTE_VALID);
	t->cpu[1][SELFTEST_SRC_VA >> 21] = cpu_to_le64(t->dma[2] | VDLA_PTE_VALID);
	t->cpu[1][SELFTEST_DST_VA >> 21] = cpu_to_le64(t->dma[3] | VDLA_PTE_VALID);
	fill_leaf(t->cpu[2], src, true);
	fill_leaf(t->cpu[3], dst, dst_writable);
	return 0;
}

static void bdma_write(struct vdla_device *vdev, u32 offset, u32 value)
{
	vdla_write(vdev, VDLA_ENGINE_BASE(VDLA_ENGINE_BDMA) + offset, value);
}

static u32 bdma_read(struct vdla_device *vdev, u32 offset)
{
	return vdla_read(vdev, VDLA_ENGINE_BASE(VDLA_ENGINE_BDMA) + offset);
}

static void mmu_disable(struct vdla_device *vdev)
{
	vdla_write(vdev, VDLA_REG_MMU_CTRL, 0);
	vdla_write(vdev, VDLA_REG_MMU_CTX_BASE_LO(SELFTEST_CONTEXT), 0);
	vdla_write(vdev, VDLA_REG_MMU_CTX_BASE_HI(SELFTEST_CONTEXT), 0);
	vdla_write(vdev, VDLA_REG_MMU_INVALIDATE, VDLA_MMU_INVALIDATE_ALL);
	vdla_write(vdev, VDLA_REG_MMU_FAULT_CLEAR, 1);
}

/* Programs the copy into the engine's CONSUMER group and starts it. */
static unsigned int start_copy(struct vdla_device *vdev, const struct selftest_tables *t,
			       u64 src_va, u64 dst_va, u32 size)
{
	unsigned int group = bdma_read(vdev, VDLA_E_POINTER) & VDLA_E_POINTER_CONSUMER ? 1 : 0;

	vdla_write(vdev, VDLA_REG_MMU_CTX_BASE_HI(SELFTEST_CONTEXT), upper_32_bits(t->dma[0]));
	vdla_write(vdev, VDLA_REG_MMU_CTX_BASE_LO(SELFTEST_CONTEXT),
		   lower_32_bits(t->dma[0]) | VDLA_MMU_CTX_ENABLE);
	vdla_write(vdev, VDLA_REG_MMU_CTRL, VDLA_MMU_CTRL_ENABLE);
	vdla_write(vdev, VDLA_REG_MMU_INVALIDATE, VDLA_MMU_INVALIDATE_ALL);
	vdla_write(vdev, VDLA_REG_MMU_FAULT_CLEAR, 1);

	bdma_write(vdev, VDLA_E_POINTER, group ? VDLA_E_POINTER_PRODUCER : 0);
	bdma_write(vdev, VDLA_D_CONTEXT, SELFTEST_CONTEXT);
	bdma_write(vdev, VDLA_D_CFG, 0);
	bdma_write(vdev, VDLA_BDMA_SRC_ADDR_LO, lower_32_bits(src_va));
	bdma_write(vdev, VDLA_BDMA_SRC_ADDR_HI, upper_32_bits(src_va));
	bdma_write(vdev, VDLA_BDMA_DST_ADDR_LO, lower_32_bits(dst_va));
	bdma_write(vdev, VDLA_BDMA_DST_ADDR_HI, upper_32_bits(dst_va));
	bdma_write(vdev, VDLA_BDMA_LINE_BYTES, size);
	bdma_write(vdev, VDLA_BDMA_LINES, 1);
	bdma_write(vdev, VDLA_BDMA_SURFACES, 1);
	bdma_write(vdev, VDLA_D_OP_ENABLE, 1);
	return group;
}

static void read_result(struct vdla_device *vdev, unsigned int group,
			struct drm_vdla_test_bdma *args)
{
	u32 stat = VDLA_E_GROUP_STAT(group);

	args->hw_error = bdma_read(vdev, stat + VDLA_E_STAT_ERROR);
	args->device_ns = bdma_read(vdev, stat + VDLA_E_STAT_TIME_LO);
	args->device_ns |= (u64)bdma_read(vdev, stat + VDLA_E_STAT_TIME_HI) << 32;
	args->fault_status = 0;
	args->fault_addr = 0;
	if (args->hw_error == VDLA_ERROR_MMU_FAULT) {
		args->fault_status = vdla_read(vdev, VDLA_REG_MMU_FAULT_STATUS);
		args->fault_addr = vdla_read(vdev, VDLA_REG_MMU_FAULT_ADDR_LO) |
				   (u64)vdla_read(vdev, VDLA_REG_MMU_FAULT_ADDR_HI) << 32;
	}
}

static int run_copy(struct vdla_device *vdev, struct drm_vdla_test_bdma *args)
{
	bool dst_writable = !(args->flags & DRM_VDLA_TEST_BDMA_FLAG_DST_READ_ONLY);
	struct selftest_buffer src, dst;
	struct selftest_tables tables;
	unsigned int group;
	long left;
	int ret;

	ret = pin_buffer(vdev, args->src, args->size, false, SELFTEST_SRC_VA, &src);
	if (ret)
		return ret;
	ret = pin_buffer(vdev, args->dst, args->size, dst_writable, SELFTEST_DST_VA, &dst);
	if (ret)
		goto out_src;
	ret = build_tables(vdev, &src, &dst, dst_writable, &tables);
	if (ret)
		goto out_dst;

	reinit_completion(&vdev->selftest_done);
	group = start_copy(vdev, &tables, src.va, dst.va, args->size);
	args->src_va = src.va;
	args->dst_va = dst.va;

	left = wait_for_completion_killable_timeout(&vdev->selftest_done,
						    msecs_to_jiffies(SELFTEST_TIMEOUT_MS));
	if (left <= 0) {
		/* The device may still use the pages: stop it before unpinning. */
		drm_err(&vdev->drm, "TEST_BDMA: %s; resetting the device\n",
			left ? "interrupted" : "no completion within 5 s");
		vdla_device_reset(vdev);
		ret = left ? (int)left : -ETIMEDOUT;
	} else {
		read_result(vdev, group, args);
		ret = args->hw_error ? -EIO : 0;
	}
	mmu_disable(vdev);
	free_tables(vdev, &tables);
out_dst:
	unpin_buffer(vdev, &dst);
out_src:
	unpin_buffer(vdev, &src);
	return ret;
}

int vdla_selftest_init(struct vdla_device *vdev)
{
	init_completion(&vdev->selftest_done);
	return drmm_mutex_init(&vdev->drm, &vdev->selftest_lock);
}

void vdla_selftest_irq(struct vdla_device *vdev, u32 pending)
{
	u32 mine = VDLA_INT_DONE(VDLA_ENGINE_BDMA, 0) | VDLA_INT_DONE(VDLA_ENGINE_BDMA, 1) |
		   VDLA_INT_ERROR(VDLA_ENGINE_BDMA);

	if (pending & mine)
		complete(&vdev->selftest_done);
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
