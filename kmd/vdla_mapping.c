// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mappings of BOs into the device address spaces of the files that hold
 * them. BO_CREATE and BO_IMPORT map at once; a handle that came from the
 * generic PRIME import is mapped when first used (BO_INFO or SUBMIT). A
 * file's mapping goes when its handle goes and no job of the file uses the
 * BO any more. An SRAM BO's mapping only records the reference: the device
 * reaches SRAM without the MMU.
 */
#include <drm/drm_file.h>
#include <linux/slab.h>

#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_gem.h"
#include "vdla_mapping.h"
#include "vdla_mmu.h"
#include "vdla_sram_bo.h"

static void mapping_release(struct kref *ref)
{
	struct vdla_mapping *m = container_of(ref, struct vdla_mapping, ref);
	struct vdla_device *vdev = m->as->vdev;

	mutex_lock(&m->bo->mappings_lock);
	list_del(&m->bo_link);
	mutex_unlock(&m->bo->mappings_lock);
	if (!vdla_sram_bo_is(m->obj))
		vdla_as_unmap(m->as, &m->node);
	vdla_as_put(m->as);
	drm_gem_object_put(m->obj);
	atomic_dec(&vdev->counters.mappings);
	kfree(m);
}

void vdla_mapping_put(struct vdla_mapping *m)
{
	if (m)
		kref_put(&m->ref, mapping_release);
}

u64 vdla_mapping_address(const struct vdla_mapping *m)
{
	if (vdla_sram_bo_is(m->obj))
		return vdla_sram_bo_address(m->obj);
	return m->node.start;
}

static struct vdla_mapping *find_mapping(struct vdla_bo *bo, struct vdla_as *as)
{
	struct vdla_mapping *m;

	lockdep_assert_held(&bo->mappings_lock);
	list_for_each_entry(m, &bo->mappings, bo_link) {
		if (m->as == as && m->handle_ref)
			return m;
	}
	return NULL;
}

void vdla_mapping_drop_handle(struct vdla_bo *bo, struct drm_file *file)
{
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_mapping *m;

	mutex_lock(&bo->mappings_lock);
	m = find_mapping(bo, vfile->as);
	if (m)
		m->handle_ref = false;
	mutex_unlock(&bo->mappings_lock);
	vdla_mapping_put(m);
}

/*
 * Whether @handle of @file still names @obj. The DRM core clears a handle's
 * entry before it calls vdla_bo_close() for it, so under the BO's
 * mappings_lock this decides which of the two comes first: a mapping made
 * while the handle is there is one vdla_bo_close() will find.
 */
static bool handle_names(struct drm_file *file, u32 handle, struct drm_gem_object *obj)
{
	bool names;

	spin_lock(&file->table_lock);
	names = idr_find(&file->object_idr, handle) == obj;
	spin_unlock(&file->table_lock);
	return names;
}

/* A new mapping of @obj in @as, on the BO's list; mappings_lock held. */
static struct vdla_mapping *mapping_create(struct vdla_bo *bo, struct vdla_as *as, bool writable)
{
	struct drm_gem_object *obj = bo->obj;
	struct vdla_mapping *m;
	struct sg_table *sgt;
	int ret;

	lockdep_assert_held(&bo->mappings_lock);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	if (!vdla_sram_bo_is(obj)) {
		sgt = vdla_gem_pages(obj);
		ret = PTR_ERR_OR_ZERO(sgt);
		if (!ret)
			ret = vdla_as_map(as, &m->node, obj->size, sgt, writable);
		if (ret) {
			kfree(m);
			return ERR_PTR(ret);
		}
	}
	kref_init(&m->ref);
	m->writable = writable;
	m->obj = obj;
	drm_gem_object_get(obj);
	m->bo = bo;
	m->as = as;
	vdla_as_get(as);
	list_add_tail(&m->bo_link, &bo->mappings);
	atomic_inc(&as->vdev->counters.mappings);
	return m;
}

/*
 * The mapping of @obj in @file's address space, created with @writable if
 * there is none; -EBUSY if there is one with another access and
 * @must_match. A new mapping holds a reference for @handle only if the
 * handle still names @obj: one closed meanwhile (another thread may close
 * any handle number) would never drop it. Returns a new reference.
 */
static struct vdla_mapping *mapping_get(struct drm_file *file, struct drm_gem_object *obj,
					u32 handle, bool writable, bool must_match)
{
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_bo *bo = vdla_bo_of(obj);
	struct vdla_mapping *m;

	mutex_lock(&bo->mappings_lock);
	m = find_mapping(bo, vfile->as);
	if (m) {
		if (must_match && m->writable != writable)
			m = ERR_PTR(-EBUSY);
		else
			kref_get(&m->ref);
		mutex_unlock(&bo->mappings_lock);
		return m;
	}
	m = mapping_create(bo, vfile->as, writable);
	if (!IS_ERR(m) && handle_names(file, handle, obj)) {
		m->handle_ref = true;
		kref_get(&m->ref);
	}
	mutex_unlock(&bo->mappings_lock);
	return m;
}

struct vdla_mapping *vdla_mapping_get(struct drm_file *file, struct drm_gem_object *obj,
				      u32 handle)
{
	return mapping_get(file, obj, handle, !vdla_gem_read_only(obj), false);
}

struct vdla_mapping *vdla_mapping_get_access(struct drm_file *file, struct drm_gem_object *obj,
					     u32 handle, bool writable)
{
	return mapping_get(file, obj, handle, writable, true);
}

struct vdla_mapping *vdla_mapping_create(struct drm_gem_object *obj, struct vdla_as *as)
{
	struct vdla_bo *bo = vdla_bo_of(obj);
	struct vdla_mapping *m;

	mutex_lock(&bo->mappings_lock);
	m = mapping_create(bo, as, true);
	mutex_unlock(&bo->mappings_lock);
	return m;
}

/*
 * Gives the handle @m unless a racing thread already made a mapping for it
 * (then that one, whose address the handle has, and @m goes) or closed it.
 */
struct vdla_mapping *vdla_mapping_adopt(struct drm_file *file, struct drm_gem_object *obj,
					u32 handle, struct vdla_mapping *m)
{
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_bo *bo = vdla_bo_of(obj);
	struct vdla_mapping *found;

	mutex_lock(&bo->mappings_lock);
	found = find_mapping(bo, vfile->as);
	if (found) {
		kref_get(&found->ref);
	} else if (handle_names(file, handle, obj)) {
		m->handle_ref = true;
		kref_get(&m->ref);
	}
	mutex_unlock(&bo->mappings_lock);
	if (!found)
		return m; /* the handle's now, or closed already: then ours is the last */
	vdla_mapping_put(m);
	return found;
}

int vdla_mapping_handle_create(struct drm_file *file, struct drm_gem_object *obj, bool writable,
			       u32 *handle)
{
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_bo *bo = vdla_bo_of(obj);
	struct vdla_mapping *m;
	int ret;

	mutex_lock(&bo->mappings_lock);
	if (find_mapping(bo, vfile->as)) {
		mutex_unlock(&bo->mappings_lock);
		return -EBUSY;
	}
	m = mapping_create(bo, vfile->as, writable);
	if (IS_ERR(m)) {
		mutex_unlock(&bo->mappings_lock);
		return PTR_ERR(m);
	}
	/*
	 * The handle is published with the mapping on the list and the lock
	 * held: a thread that uses the new number at once waits for the lock
	 * and then finds this mapping, never makes one of another access.
	 */
	ret = drm_gem_handle_create(file, obj, handle);
	if (!ret && handle_names(file, *handle, obj)) {
		m->handle_ref = true;
		m = NULL;
	}
	mutex_unlock(&bo->mappings_lock);
	vdla_mapping_put(m); /* not the handle's: it failed, or was closed already */
	return ret;
}

bool vdla_mapping_file_may_write(struct drm_file *file, struct drm_gem_object *obj)
{
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_bo *bo = vdla_bo_of(obj);
	struct vdla_mapping *m;
	bool writable;

	mutex_lock(&bo->mappings_lock);
	m = find_mapping(bo, vfile->as);
	writable = !m || m->writable;
	mutex_unlock(&bo->mappings_lock);
	return writable;
}
