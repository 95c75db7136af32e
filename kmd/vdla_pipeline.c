// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pipelines and their references (docs/ownership.md).
 *
 * A privileged file creates a pipeline under a unique name and owns it;
 * other files open it by name, each getting one handle, a reference. The
 * owner alone destroys it (EPERM for the others), not while others hold
 * references unless forced. When the last reference other than the
 * owner's goes (CLOSE, or the file closed: its process exited or was
 * killed), the driver runs the pipeline's exit action there and then,
 * whether or not the owner is scheduled, and tells the owner. When the
 * owner's file closes, the pipeline is torn down as by a forced destroy:
 * the others are told and their later calls fail with ECANCELED.
 */
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/moduleparam.h>
#include <linux/pid_namespace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "vdla_channel.h"
#include "vdla_device.h"
#include "vdla_file.h"
#include "vdla_pipeline.h"

static int pipeline_group = -1;
module_param(pipeline_group, int, 0644);
MODULE_PARM_DESC(pipeline_group,
		 "A group whose members may create pipelines without CAP_SYS_ADMIN (-1: none)");

int vdla_pipelines_init(struct vdla_device *vdev)
{
	INIT_LIST_HEAD(&vdev->pipelines.list);
	return drmm_mutex_init(&vdev->drm, &vdev->pipelines.lock);
}

void vdla_pipeline_owner_of(const struct vdla_file *holder, struct drm_vdla_owner *who)
{
	memset(who, 0, sizeof(*who));
	who->pid = pid_nr_ns(holder->tgid, task_active_pid_ns(current));
	/* Nothing of a process the caller's pid namespace does not see. */
	if (who->pid)
		strscpy(who->comm, holder->comm);
}

/*
 * The group is a gid of the initial user namespace, as the administrator
 * who sets the parameter means it: a process must not map some gid of its
 * own user namespace onto it.
 */
static bool may_create(void)
{
	int gid = READ_ONCE(pipeline_group);
	kgid_t group;

	if (capable(CAP_SYS_ADMIN))
		return true;
	if (gid < 0)
		return false;
	group = make_kgid(&init_user_ns, gid);
	return gid_valid(group) && in_group_p(group);
}

static struct vdla_pipeline *find_by_name(struct vdla_device *vdev, const char *name)
{
	struct vdla_pipeline *p;

	list_for_each_entry(p, &vdev->pipelines.list, link) {
		if (!strcmp(p->name, name))
			return p;
	}
	return NULL;
}

/* Reserves @type for @ref's file, so that sending it later cannot fail. */
static int reserve_event(struct vdla_pipeline_ref *ref, u32 type)
{
	struct vdla_pipeline_event *e;

	if (ref->event || !ref->file)
		return 0;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->ev.base.type = type;
	e->ev.base.length = sizeof(e->ev);
	e->ev.handle = ref->handle;
	if (drm_event_reserve_init(&ref->pipeline->vdev->drm, ref->file, &e->base, &e->ev.base)) {
		kfree(e);
		return -EAGAIN;
	}
	ref->event = e;
	return 0;
}

static void drop_event(struct vdla_pipeline_ref *ref)
{
	if (ref->event)
		drm_event_cancel_free(&ref->pipeline->vdev->drm, &ref->event->base);
	ref->event = NULL;
}

static void send_event(struct vdla_pipeline_ref *ref, u32 actions, s32 pid)
{
	struct vdla_pipeline_event *e = ref->event;

	if (!e)
		return;
	ref->event = NULL;
	e->ev.user_data = ref->pipeline->exit_user_data;
	e->ev.actions = actions;
	e->ev.pid = pid;
	e->ev.timestamp_ns = ktime_get_ns();
	drm_send_event(&ref->pipeline->vdev->drm, &e->base);
}

/* A new handle of @file to @p; the caller links it as owner or reference. */
static struct vdla_pipeline_ref *new_ref(struct drm_file *file, struct vdla_pipeline *p,
					 bool owner)
{
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_pipeline_ref *ref;
	int ret;

	unsigned long id;
	u32 n = 0;

	xa_for_each(&vfile->pipelines, id, ref)
		n++;
	if (n >= DRM_VDLA_MAX_PIPELINE_HANDLES)
		return ERR_PTR(-EAGAIN);
	ref = kzalloc(sizeof(*ref), GFP_KERNEL);
	if (!ref)
		return ERR_PTR(-ENOMEM);
	ref->pipeline = p;
	ref->vfile = vfile;
	ref->file = file;
	ref->owner = owner;
	/* Not the number of a handle just closed: a late event would name the wrong one. */
	ret = xa_alloc_cyclic(&vfile->pipelines, &ref->handle, ref, xa_limit_32b,
			      &vfile->next_pipeline_handle, GFP_KERNEL);
	if (ret < 0) {
		kfree(ref);
		return ERR_PTR(ret);
	}
	return ref;
}

static void free_ref(struct vdla_pipeline_ref *ref)
{
	drop_event(ref);
	xa_erase(&ref->vfile->pipelines, ref->handle);
	list_del(&ref->link);
	kfree(ref);
}

static void free_pipeline(struct vdla_pipeline *p)
{
	atomic_dec(&p->vdev->counters.pipelines);
	xa_destroy(&p->channels);
	vdla_file_put(p->owner);
	kfree(p);
}

int vdla_pipeline_create(struct drm_file *file, const char *name, const u32 *params,
			 u32 *handle, struct drm_vdla_owner *who)
{
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_pipelines *all = &vfile->vdev->pipelines;
	struct vdla_pipeline_ref *ref;
	struct vdla_pipeline *p, *taken;
	int ret = 0;

	if (!may_create())
		return -EACCES;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->vdev = vfile->vdev;
	strscpy(p->name, name);
	memcpy(p->params, params, sizeof(p->params));
	INIT_LIST_HEAD(&p->refs);
	xa_init_flags(&p->channels, XA_FLAGS_ALLOC1);
	p->owner = vfile;
	vdla_file_get(vfile);
	atomic_inc(&p->vdev->counters.pipelines);

	mutex_lock(&all->lock);
	taken = find_by_name(vfile->vdev, name);
	if (taken) {
		vdla_pipeline_owner_of(taken->owner, who);
		ret = -EEXIST;
	} else if (all->count >= DRM_VDLA_MAX_PIPELINES) {
		ret = -EAGAIN;
	}
	if (ret)
		goto out_free;
	ref = new_ref(file, p, true);
	if (IS_ERR(ref)) {
		ret = PTR_ERR(ref);
		goto out_free;
	}
	list_add_tail(&ref->link, &p->refs);
	list_add_tail(&p->link, &all->list);
	all->count++;
	*handle = ref->handle;
	mutex_unlock(&all->lock);
	return 0;

out_free:
	mutex_unlock(&all->lock);
	free_pipeline(p);
	return ret;
}

static bool params_equal(const u32 *a, const u32 *b)
{
	return !memcmp(a, b, DRM_VDLA_PIPELINE_PARAMS * sizeof(u32));
}

int vdla_pipeline_open(struct drm_file *file, struct drm_vdla_pipeline_open *args)
{
	struct vdla_file *vfile = file->driver_priv;
	struct vdla_pipelines *all = &vfile->vdev->pipelines;
	struct vdla_pipeline_ref *ref;
	struct vdla_pipeline *p;
	int ret;

	mutex_lock(&all->lock);
	p = find_by_name(vfile->vdev, args->name);
	if (!p) {
		ret = -ENOENT;
		goto out;
	}
	vdla_pipeline_owner_of(p->owner, &args->owner);
	list_for_each_entry(ref, &p->refs, link) {
		if (ref->vfile == vfile) {
			ret = -EEXIST;
			goto out;
		}
	}
	args->params_differ = !params_equal(p->params, args->params);
	if (args->params_differ && (args->flags & DRM_VDLA_PIPELINE_OPEN_EXACT)) {
		memcpy(args->params, p->params, sizeof(args->params));
		ret = -EEXIST;
		goto out;
	}
	ref = new_ref(file, p, false);
	if (IS_ERR(ref)) {
		ret = PTR_ERR(ref);
		goto out;
	}
	list_add_tail(&ref->link, &p->refs);
	/* Told when the pipeline goes: the event cannot be missing then. */
	ret = reserve_event(ref, DRM_VDLA_EVENT_PIPELINE_GONE);
	if (ret) {
		free_ref(ref);
		goto out;
	}
	p->references++;
	memcpy(args->params, p->params, sizeof(args->params));
	args->handle = ref->handle;
out:
	mutex_unlock(&all->lock);
	return ret;
}

static struct vdla_pipeline_ref *lookup_ref(struct vdla_file *vfile, u32 handle)
{
	lockdep_assert_held(&vfile->vdev->pipelines.lock);
	return handle ? xa_load(&vfile->pipelines, handle) : NULL;
}

struct vdla_pipeline *vdla_pipeline_lookup_live(struct vdla_file *vfile, u32 handle)
{
	struct vdla_pipeline_ref *ref = lookup_ref(vfile, handle);

	if (!ref)
		return ERR_PTR(-ENOENT);
	if (ref->pipeline->gone)
		return ERR_PTR(-ECANCELED);
	return ref->pipeline;
}

/*
 * The pipeline goes: its channels are stopped and destroyed, its name is
 * free, and the other holders are told; their handles stay until they
 * close them, failing with ECANCELED.
 */
static void tear_down(struct vdla_pipeline *p)
{
	struct vdla_pipelines *all = &p->vdev->pipelines;
	struct vdla_pipeline_ref *ref;

	p->gone = true;
	list_del(&p->link);
	all->count--;
	vdla_channels_destroy_all(p);
	list_for_each_entry(ref, &p->refs, link) {
		if (!ref->owner)
			send_event(ref, 0, 0);
	}
}

/* The exit action: the last reference of a file other than the owner's went. */
static void run_exit_action(struct vdla_pipeline *p, struct vdla_file *last)
{
	struct vdla_pipeline_ref *owner = NULL, *ref;
	u32 actions = p->exit_actions;

	if (actions & DRM_VDLA_PIPELINE_EXIT_STOP_CHANNELS)
		vdla_channels_stop_all(p);
	if (actions & DRM_VDLA_PIPELINE_EXIT_RESET_ATTRS)
		vdla_channels_reset_attrs(p);
	p->exit_runs++;
	drm_dbg(&p->vdev->drm, "pipeline %s: exit action 0x%x ran, pid %d was the last\n",
		p->name, actions, last->pid);
	if (!(actions & DRM_VDLA_PIPELINE_EXIT_NOTIFY))
		return;
	list_for_each_entry(ref, &p->refs, link) {
		if (ref->owner)
			owner = ref;
	}
	if (!owner)
		return;
	send_event(owner, actions, pid_nr_ns(last->tgid, ns_of_pid(p->owner->tgid)));
	/* For the next time; if the owner does not read its events, QUERY's exit_runs counts. */
	reserve_event(owner, DRM_VDLA_EVENT_PIPELINE_IDLE);
}

/* Drops a reference: its channel handles and taken buffers go first. */
static void drop_ref(struct vdla_pipeline_ref *ref, struct drm_file *file)
{
	struct vdla_pipeline *p = ref->pipeline;
	struct vdla_file *vfile = ref->vfile;

	if (!p->gone)
		vdla_channels_drop_file(p, vfile, file);
	free_ref(ref);
	if (p->gone) {
		if (list_empty(&p->refs))
			free_pipeline(p);
		return;
	}
	if (!--p->references)
		run_exit_action(p, vfile);
}

int vdla_pipeline_destroy(struct vdla_file *vfile, u32 handle, bool force, u32 *references,
			  struct drm_vdla_owner *who)
{
	struct vdla_pipelines *all = &vfile->vdev->pipelines;
	struct vdla_pipeline_ref *ref;
	struct vdla_pipeline *p;
	int ret = 0;

	mutex_lock(&all->lock);
	ref = lookup_ref(vfile, handle);
	if (!ref) {
		ret = -ENOENT;
		goto out;
	}
	p = ref->pipeline;
	vdla_pipeline_owner_of(p->owner, who);
	*references = p->references;
	if (!ref->owner)
		ret = -EPERM;
	else if (p->gone)
		ret = -ECANCELED;
	else if (p->references && !force)
		ret = -EBUSY;
	if (ret)
		goto out;
	tear_down(p);
	free_ref(ref);
	if (list_empty(&p->refs))
		free_pipeline(p);
out:
	mutex_unlock(&all->lock);
	return ret;
}

int vdla_pipeline_close(struct vdla_file *vfile, u32 handle)
{
	struct vdla_pipelines *all = &vfile->vdev->pipelines;
	struct vdla_pipeline_ref *ref;
	int ret = 0;

	mutex_lock(&all->lock);
	ref = lookup_ref(vfile, handle);
	if (!ref)
		ret = -ENOENT;
	else if (ref->owner && !ref->pipeline->gone)
		ret = -EINVAL;
	else
		drop_ref(ref, ref->file);
	mutex_unlock(&all->lock);
	return ret;
}

int vdla_pipeline_query(struct vdla_file *vfile, struct drm_vdla_pipeline_query *args)
{
	struct vdla_pipelines *all = &vfile->vdev->pipelines;
	struct vdla_pipeline_ref *ref;
	struct vdla_pipeline *p;

	mutex_lock(&all->lock);
	ref = lookup_ref(vfile, args->handle);
	if (!ref) {
		mutex_unlock(&all->lock);
		return -ENOENT;
	}
	p = ref->pipeline;
	strscpy_pad(args->name, p->name);
	memcpy(args->params, p->params, sizeof(args->params));
	args->state = p->gone ? DRM_VDLA_PIPELINE_STATE_GONE : DRM_VDLA_PIPELINE_STATE_LIVE;
	args->is_owner = ref->owner;
	args->references = p->references;
	args->channels = p->num_channels;
	args->exit_actions = p->exit_actions;
	args->exit_runs = p->exit_runs;
	vdla_pipeline_owner_of(p->owner, &args->owner);
	mutex_unlock(&all->lock);
	return 0;
}

int vdla_pipeline_set_exit(struct vdla_file *vfile, u32 handle, u32 actions, u64 user_data,
			   struct drm_vdla_owner *who)
{
	struct vdla_pipelines *all = &vfile->vdev->pipelines;
	struct vdla_pipeline_ref *ref;
	int ret = 0;

	mutex_lock(&all->lock);
	ref = lookup_ref(vfile, handle);
	if (!ref) {
		ret = -ENOENT;
		goto out;
	}
	vdla_pipeline_owner_of(ref->pipeline->owner, who);
	if (!ref->owner)
		ret = -EPERM;
	else if (ref->pipeline->gone)
		ret = -ECANCELED;
	else if (actions & DRM_VDLA_PIPELINE_EXIT_NOTIFY)
		ret = reserve_event(ref, DRM_VDLA_EVENT_PIPELINE_IDLE);
	else
		drop_event(ref);
	if (!ret) {
		ref->pipeline->exit_actions = actions;
		ref->pipeline->exit_user_data = user_data;
	}
out:
	mutex_unlock(&all->lock);
	return ret;
}

void vdla_pipeline_file_closing(struct vdla_file *vfile)
{
	struct vdla_pipelines *all = &vfile->vdev->pipelines;
	struct vdla_pipeline_ref *ref;
	unsigned long handle;

	mutex_lock(&all->lock);
	xa_for_each(&vfile->pipelines, handle, ref) {
		drop_event(ref);
		ref->file = NULL;
	}
	mutex_unlock(&all->lock);
}

void vdla_pipeline_file_close(struct vdla_file *vfile)
{
	struct vdla_pipelines *all = &vfile->vdev->pipelines;
	struct vdla_pipeline_ref *ref;
	unsigned long handle;

	mutex_lock(&all->lock);
	/* References first: a file that owns one pipeline and uses another leaves both clean. */
	xa_for_each(&vfile->pipelines, handle, ref) {
		if (!ref->owner)
			drop_ref(ref, NULL);
	}
	xa_for_each(&vfile->pipelines, handle, ref) {
		struct vdla_pipeline *p = ref->pipeline;

		if (!p->gone)
			tear_down(p);
		free_ref(ref);
		if (list_empty(&p->refs))
			free_pipeline(p);
	}
	mutex_unlock(&all->lock);
}

void vdla_pipeline_debugfs_show(struct seq_file *m, struct vdla_device *vdev)
{
	struct vdla_pipelines *all = &vdev->pipelines;
	struct vdla_pipeline_ref *ref;
	struct vdla_pipeline *p;

	mutex_lock(&all->lock);
	list_for_each_entry(p, &all->list, link) {
		seq_printf(m, "pipeline %s owner_pid %d owner %s references %u channels %u exit_actions 0x%x exit_runs %u\n",
			   p->name, p->owner->pid, p->owner->comm, p->references, p->num_channels,
			   p->exit_actions, p->exit_runs);
		list_for_each_entry(ref, &p->refs, link) {
			if (!ref->owner)
				seq_printf(m, "  reference pid %d %s handle %u\n", ref->vfile->pid,
					   ref->vfile->comm, ref->handle);
		}
		vdla_channels_debugfs_show(m, p);
	}
	mutex_unlock(&all->lock);
}
