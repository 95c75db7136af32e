/* SPDX-License-Identifier: MIT */
/*
 * OpenVX graphs on libvdla's own buffers and fences: a tensor whose elements
 * are a vdla::Buffer (a shared buffer, a stream packet's element), and a
 * graph run that starts once fences signalled. With both, a stream consumer
 * runs an OpenVX network on each packet where the producer wrote it, its
 * DLA jobs waiting for the producer's fence on the device
 * (docs/streams.md, "The demo"; docs/openvx.md, "Tensors on libvdla buffers, runs after fences").
 *
 * The OpenVX context's DLA is the one VDLA_VX_DEVICE names (the first vDLA
 * when unset); a buffer of any vDLA, or any dma-buf, can back a tensor.
 */
#pragma once

#include <VX/vx.h>

#include <vdla/buffer.h>
#include <vdla/sync.h>

#include <vector>

namespace vdla::vx {

/*
 * A tensor of @dims (width first, as vxCreateTensor) of @dataType and
 * @fixedPointPosition whose elements are the first bytes of @buffer,
 * packed. The context's DLA imports the buffer (a dma-buf) with the
 * buffer's access, so the tensor keeps the memory alive after @buffer and
 * its owner are gone. DLA jobs address it in place; the CPU (CPU nodes,
 * vxCopyTensorPatch, vxMapTensorPatch) reaches it through a mapping, which
 * the buffer's permission may forbid (VX_ERROR_NO_MEMORY then). Its values
 * are read at every run, so a layer that would copy them into its DLA task
 * once (a bias, deconvolution weights) runs on the CPU instead. Two such
 * tensors of one buffer are one memory to a graph's ordering. A tensor
 * of a ReadOnly buffer is read-only: writing it by copy or map, or binding
 * it to a node's output, is VX_ERROR_NOT_SUPPORTED. Release it with
 * vxReleaseTensor.
 *
 * Errors (an error object, as vxCreateTensor; the log says why):
 * VX_ERROR_INVALID_DIMENSION (no dimensions, or more than 6, a zero one),
 * VX_ERROR_NOT_SUPPORTED (not a tensor type, no DLA, an SRAM buffer: it
 * has no dma-buf), VX_ERROR_INVALID_PARAMETERS (the tensor is larger than
 * the buffer), VX_ERROR_NO_RESOURCES (the import failed).
 */
vx_tensor createTensorFromBuffer(vx_context context, const std::vector<vx_size> &dims,
	vx_enum dataType, vx_int8 fixedPointPosition, const Buffer &buffer);

/*
 * The next run of @graph (vxProcessGraph or vxScheduleGraph) starts only
 * once each of @fences signalled: its DLA jobs wait for them on the device,
 * and before its first CPU node runs (or a DLA task that copies staged
 * inputs on the CPU, or more than a job can wait for, 64), the CPU waits
 * for them, each up to the limit of a DLA task's wait (120 s). Fences set
 * before that run replace these; the run takes them, so the one after
 * waits for nothing (a run that fails to start drops them too). A fence the CPU waits for
 * that signals an error fails the run (VX_FAILURE, the log names it); the
 * device does not pass a dependency's error on to the job that waited.
 * Errors: VX_ERROR_INVALID_REFERENCE, VX_ERROR_GRAPH_SCHEDULED (a run is
 * in flight).
 */
vx_status setGraphWaitFences(vx_graph graph, std::vector<SyncFence> fences);

} /* namespace vdla::vx */
