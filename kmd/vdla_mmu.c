// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device address spaces and the MMU slots they are bound to. A slot is one of
 * the device's 16 MMU contexts (docs/hw-spec.md, "MMU"); the driver says slot
 * so that "context" only ever means a user's context (vdla_ctx.c).
 *
 * A table is one 4 KiB page of 512 little-endian entries, allocated
 * coherent so that the device sees the driver's writes. Tables are created
 * on demand when something is mapped and kept until the address space is
 * freed: a file's buffers tend to come back to the same ranges, and at most
 * 1 + 512 + 512 * 512 of them can exist.
 *
 * Locking: as->lock protects the tables and the address allocator; the
 * binding of address spaces to the 15 MMU slots is protected by
 * vdev->fw_lock, which is taken after as->lock when both are needed.
 */
#include <drm/drm_print.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "vdla_device.h"
#include "vdla_mmu.h"

#define PT_ENTRIES	512
#define PT_SHIFT(level)	(VDLA_PAGE_SHIFT + 9 * (VDLA_PT_LEVELS - 1 - (level)))
#define PT_INDEX(va, level) (((va) >> PT_SHIFT(level)) & (PT_ENTRIES - 1))

/* One table; the tables of levels 0 and 1 know their children. */
struct vdla_pt {
	__le64 *cpu;
	dma_addr_t dma;
	struct vdla_pt **children;
};

static struct device *dma_dev(struct vdla_as *as)
{
	return &as->vdev->pdev->dev;
}

static struct vdla_pt *pt_alloc(struct vdla_as *as, int level)
{
	struct vdla_pt *pt = kzalloc(sizeof(*pt), GFP_KERNEL);

	if (!pt)
		return NULL;
	pt->cpu = dma_alloc_coherent(dma_dev(as), VDLA_PAGE_SIZE, &pt->dma, GFP_KERNEL);
	if (level < VDLA_PT_LEVELS - 1)
		pt->children = kcalloc(PT_ENTRIES, sizeof(*pt->children), GFP_KERNEL);
	if (!pt->cpu || (level < VDLA_PT_LEVELS - 1 && !pt->children)) {
		if (pt->cpu)
			dma_free_coherent(dma_dev(as), VDLA_PAGE_SIZE, pt->cpu, pt->dma);
		kfree(pt->children);
		kfree(pt);
		return NULL;
	}
	return pt;
}

static void pt_free(struct vdla_as *as, struct vdla_pt *pt, int level)
{
	if (!pt)
		return;
	if (pt->children) {
		for (int i = 0; i < PT_ENTRIES; i++)
			pt_free(as, pt->children[i], level + 1);
		kfree(pt->children);
	}
	dma_free_coherent(dma_dev(as), VDLA_PAGE_SIZE, pt->cpu, pt->dma);
	kfree(pt);
}

/* The leaf table covering @va, created if @create. Under as->lock. */
static struct vdla_pt *leaf_table(struct vdla_as *as, u64 va, bool create)
{
	struct vdla_pt *pt = as->root;

	for (int level = 0; level < VDLA_PT_LEVELS - 1; level++) {
		unsigned int i = PT_INDEX(va, level);

		if (!pt->children[i]) {
			if (!create)
				return NULL;
			pt->children[i] = pt_alloc(as, level + 1);
			if (!pt->children[i])
				return NULL;
			pt->cpu[i] = cpu_to_le64(pt->children[i]->dma | VDLA_PTE_VALID);
		}
		pt = pt->children[i];
	}
	return pt;
}

static void clear_range(struct vdla_as *as, u64 va, u64 size)
{
	for (u64 end = va + size; va < end; va += VDLA_PAGE_SIZE) {
		struct vdla_pt *leaf = leaf_table(as, va, false);

		if (leaf)
			leaf->cpu[PT_INDEX(va, VDLA_PT_LEVELS - 1)] = 0;
	}
}

struct vdla_as *vdla_as_create(struct vdla_device *vdev)
{
	struct vdla_as *as = kzalloc(sizeof(*as), GFP_KERNEL);

	if (!as)
		return NULL;
	as->vdev = vdev;
	as->slot = -1;
	kref_init(&as->ref);
	mutex_init(&as->lock);
	drm_mm_init(&as->va, VDLA_AS_START, VDLA_AS_END - VDLA_AS_START);
	as->root = pt_alloc(as, 0);
	if (!as->root) {
		drm_mm_takedown(&as->va);
		kfree(as);
		return NULL;
	}
	return as;
}

dma_addr_t vdla_as_table(const struct vdla_as *as)
{
	return as->root->dma;
}

void vdla_as_get(struct vdla_as *as)
{
	kref_get(&as->ref);
}

static void unbind(struct vdla_device *vdev, struct vdla_as *as)
{
	mutex_lock(&vdev->fw_lock);
	if (as->slot >= 0) {
		/* After an unplug the registers are gone, and so is the device. */
		if (!vdev->gone) {
			vdla_write(vdev, VDLA_REG_MMU_CTX_BASE_LO(as->slot), 0);
			vdla_write(vdev, VDLA_REG_MMU_CTX_BASE_HI(as->slot), 0);
			vdla_write(vdev, VDLA_REG_MMU_INVALIDATE, as->slot);
		}
		vdev->mmu_slots[as->slot] = NULL;
		as->slot = -1;
	}
	mutex_unlock(&vdev->fw_lock);
}

static void as_release(struct kref *ref)
{
	struct vdla_as *as = container_of(ref, struct vdla_as, ref);

	unbind(as->vdev, as);
	pt_free(as, as->root, 0);
	drm_mm_takedown(&as->va);
	mutex_destroy(&as->lock);
	kfree(as);
}

void vdla_as_put(struct vdla_as *as)
{
	if (as)
		kref_put(&as->ref, as_release);
}

int vdla_as_map(struct vdla_as *as, struct drm_mm_node *node, u64 size,
		struct sg_table *sgt, bool writable)
{
	u64 perms = VDLA_PTE_VALID | VDLA_PTE_READ | (writable ? VDLA_PTE_WRITE : 0);
	struct sg_dma_page_iter iter;
	u64 va;
	int ret;

	mutex_lock(&as->lock);
	ret = drm_mm_insert_node_generic(&as->va, node, size + VDLA_PAGE_SIZE, VDLA_PAGE_SIZE,
					 0, DRM_MM_INSERT_BEST);
	if (ret) {
		mutex_unlock(&as->lock);
		return ret == -ENOSPC ? -ENOSPC : ret;
	}

	va = node->start;
	for_each_sgtable_dma_page(sgt, &iter, 0) {
		struct vdla_pt *leaf;

		if (va >= node->start + size)
			break;
		leaf = leaf_table(as, va, true);
		if (!leaf) {
			clear_range(as, node->start, va - node->start);
			drm_mm_remove_node(node);
			mutex_unlock(&as->lock);
			return -ENOMEM;
		}
		leaf->cpu[PT_INDEX(va, VDLA_PT_LEVELS - 1)] =
			cpu_to_le64((sg_page_iter_dma_address(&iter) & VDLA_PTE_ADDR_MASK) | perms);
		va += VDLA_PAGE_SIZE;
	}
	mutex_unlock(&as->lock);
	/*
	 * New entries only: the device cannot have cached a translation for
	 * them, since the range was unmapped and invalidated when freed.
	 */
	wmb();
	return 0;
}

void vdla_as_unmap(struct vdla_as *as, struct drm_mm_node *node)
{
	struct vdla_device *vdev = as->vdev;

	mutex_lock(&as->lock);
	clear_range(as, node->start, node->size);
	/* The cleared entries reach memory before the device re-walks. */
	wmb();
	mutex_lock(&vdev->fw_lock);
	if (as->slot >= 0 && !vdev->gone)
		vdla_write(vdev, VDLA_REG_MMU_INVALIDATE, as->slot);
	mutex_unlock(&vdev->fw_lock);
	/* Only now may the addresses, and the pages, be used again. */
	drm_mm_remove_node(node);
	mutex_unlock(&as->lock);
}

static void program_slot(struct vdla_device *vdev, int slot, dma_addr_t table)
{
	vdla_write(vdev, VDLA_REG_MMU_CTX_BASE_HI(slot), upper_32_bits(table));
	vdla_write(vdev, VDLA_REG_MMU_CTX_BASE_LO(slot),
		   lower_32_bits(table) | (table ? VDLA_MMU_CTX_ENABLE : 0));
	vdla_write(vdev, VDLA_REG_MMU_INVALIDATE, slot);
}

int vdla_mmu_bind(struct vdla_device *vdev, struct vdla_as *as)
{
	int slot, victim = -1;

	lockdep_assert_held(&vdev->fw_lock);
	if (as->slot >= 0) {
		vdev->mmu_slot_used[as->slot] = ++vdev->mmu_clock;
		return as->slot;
	}
	/* A free context, else the least recently used one. */
	for (slot = VDLA_MMU_FIRST_SLOT; slot < VDLA_MMU_NUM_CONTEXTS; slot++) {
		if (!vdev->mmu_slots[slot]) {
			victim = slot;
			break;
		}
		if (victim < 0 || vdev->mmu_slot_used[slot] < vdev->mmu_slot_used[victim])
			victim = slot;
	}
	if (vdev->mmu_slots[victim])
		vdev->mmu_slots[victim]->slot = -1;
	vdev->mmu_slots[victim] = as;
	vdev->mmu_slot_used[victim] = ++vdev->mmu_clock;
	as->slot = victim;
	program_slot(vdev, victim, as->root->dma);
	return victim;
}

void vdla_mmu_restore(struct vdla_device *vdev)
{
	vdla_write(vdev, VDLA_REG_MMU_CTRL, VDLA_MMU_CTRL_ENABLE);
	for (int slot = VDLA_MMU_FIRST_SLOT; slot < VDLA_MMU_NUM_CONTEXTS; slot++) {
		if (vdev->mmu_slots[slot])
			program_slot(vdev, slot, vdev->mmu_slots[slot]->root->dma);
	}
	vdla_write(vdev, VDLA_REG_MMU_INVALIDATE, VDLA_MMU_INVALIDATE_ALL);
	vdla_write(vdev, VDLA_REG_MMU_FAULT_CLEAR, 1);
}

void vdla_mmu_set_selftest(struct vdla_device *vdev, dma_addr_t table)
{
	program_slot(vdev, VDLA_MMU_SELFTEST_SLOT, table);
	vdla_write(vdev, VDLA_REG_MMU_FAULT_CLEAR, 1);
}
