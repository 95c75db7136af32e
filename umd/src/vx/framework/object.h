/* SPDX-License-Identifier: MIT */
/*
 * The objects behind the OpenVX handles. Every handle points to a C++ object
 * derived from _vx_reference; a process-wide registry tells live objects from
 * stale or foreign pointers, and one recursive lock serialises changes to the
 * object graph (user kernels run without it).
 */
#pragma once

#include <VX/vx.h>

#include <vdla/sync.h>

/* Every file defining vx* functions includes this one. */
#include "framework/api_guard.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace vdla::vx {
class MemoryGroups;
class Schedule;
class Target;

/*
 * Memory a target placed a tensor's elements in (a DLA buffer): the
 * tensor's storage when the CPU reaches it. Each target derives its own.
 */
class PlacedMemory
{
public:
	virtual ~PlacedMemory() = default;
	/* The CPU's view of it; null when the CPU cannot reach it (DLA SRAM). */
	virtual uint8_t *data() const = 0;
	virtual size_t size() const = 0;
	/* Whether @other is the same memory (two imports of one buffer). */
	virtual bool sameMemory(const PlacedMemory &other) const { return this == &other; }
};
} /* namespace vdla::vx */

struct _vx_reference {
	_vx_reference(vx_enum type, vx_context context);
	virtual ~_vx_reference() = default;

	/* The application released its last handle; the object may live on
	 * for the graphs that use it. */
	virtual void onUnreachable() { }
	/* Called just before deletion, with the object still registered:
	 * drop the references this object holds. */
	virtual void teardown() { }

	vx_enum type;
	vx_context context;
	/* Unique for the life of the process: a plan that names an object
	 * tells it from a later one at the same address. */
	const uint64_t serial;
	/* Handles held by the application and references held by other
	 * objects (graphs, nodes, parameters); the object dies when both
	 * are zero. */
	vx_uint32 externalCount = 0;
	vx_uint32 internalCount = 0;
	std::string name;
	vx_status errorStatus = VX_SUCCESS;
	/* An item of an object array: the array (which holds it, so no
	 * count is held back: null once the array is gone) and its index. */
	vx_object_array parentArray = nullptr;
	vx_size indexInArray = 0;
};

struct KernelParameter {
	bool defined = false;
	vx_enum direction = VX_INPUT;
	vx_enum type = VX_TYPE_INVALID;
	vx_enum state = VX_PARAMETER_STATE_REQUIRED;
};

struct _vx_kernel : _vx_reference {
	explicit _vx_kernel(vx_context context) : _vx_reference(VX_TYPE_KERNEL, context) { }

	std::string kernelName;
	vx_enum enumeration = 0;
	vx_kernel_f function = nullptr;
	vx_kernel_validate_f validate = nullptr;
	vx_kernel_initialize_f initialize = nullptr;
	vx_kernel_deinitialize_f deinitialize = nullptr;
	std::vector<KernelParameter> parameters;
	vx_size localDataSize = 0;
	bool finalized = false;
	bool user = true;
	bool removed = false;
};

/* Where a node runs (vxSetNodeTarget). */
enum class NodeTarget { Any, Cpu, Dla };

/* VX_TARGET_ANY, or VX_TARGET_STRING with "any", "cpu" or "dla" in any
 * case; nullopt for anything else. Whether "dla" is possible is the
 * caller's to check. */
std::optional<NodeTarget> parseTarget(vx_enum targetEnum, const char *targetString);

struct _vx_context : _vx_reference {
	_vx_context();
	~_vx_context() override;

	struct Module {
		void *handle = nullptr;
		vx_publish_kernels_f publish = nullptr;
		vx_unpublish_kernels_f unpublish = nullptr;
		bool registered = false;
		bool loaded = false;
	};

	/* Kernels known to the context, each with an internal reference. */
	std::vector<vx_kernel> kernels;
	std::map<vx_status, vx_reference> errors;
	std::map<std::string, Module> modules;
	/* Handles of unloaded libraries: closed with the context, since nodes
	 * may still point into their code. */
	std::vector<void *> unloadedHandles;
	vx_uint32 userKernelsAllocated = 0;
	vx_uint32 userLibrariesAllocated = 0;
	/* vxRegisterUserStruct: entry i is type VX_TYPE_USER_STRUCT_START + i;
	 * an empty name for the unnamed. */
	struct UserStruct {
		vx_size size;
		std::string name;
	};
	std::vector<UserStruct> userStructs;

	/* Where its nodes can run, in order of preference (framework/target.h). */
	std::vector<std::unique_ptr<vdla::vx::Target>> targets;

	vx_log_callback_f logCallback = nullptr;
	bool logReentrant = false;
	std::mutex logMutex;

	/*
	 * vxDirective: log entries reach the callback unless logging is
	 * disabled; performance (VX_GRAPH_PERFORMANCE, VX_NODE_PERFORMANCE and
	 * the device's per-operation statistics behind them) is recorded only
	 * once enabled, as the specification's default has it.
	 */
	bool loggingEnabled = true;
	bool performanceEnabled = false;

	/* Successful vxSwapTensorHandle and vxSwapImageHandle calls: a graph
	 * that saw another count checks its MemoryGroups again. */
	uint64_t handleSwaps = 0;

	/* The immediate mode functions' border (vxSetContextAttribute) and
	 * target (vxSetImmediateModeTarget: "any", "cpu" or "dla"). */
	vx_border_t immediateBorder = { VX_BORDER_UNDEFINED, {} };
	vx_enum immediateBorderPolicy = VX_BORDER_POLICY_DEFAULT_TO_UNDEFINED;
	NodeTarget immediateTarget = NodeTarget::Any;
};

struct _vx_scalar : _vx_reference {
	explicit _vx_scalar(vx_context context) : _vx_reference(VX_TYPE_SCALAR, context) { }
	void teardown() override;

	vx_enum dataType = VX_TYPE_INVALID;
	std::vector<uint8_t> value;
	/* vxCreateVirtualScalar: reachable by the kernels of scope only. */
	bool isVirtual = false;
	vx_graph scope = nullptr;
};

struct _vx_lut : _vx_reference {
	explicit _vx_lut(vx_context context) : _vx_reference(VX_TYPE_LUT, context) { }

	/* VX_LUT_OFFSET: the entry of input value 0. */
	vx_uint32 offset() const { return dataType == VX_TYPE_INT16 ? vx_uint32(count / 2) : 0; }

	vx_enum dataType = VX_TYPE_INVALID;
	vx_size count = 0;
	std::vector<uint8_t> data;
	/* Open mappings (vxMapLUT) and their usage. */
	std::map<vx_map_id, vx_enum> maps;
	vx_map_id nextMapId = 1;
};

struct _vx_tensor_t : _vx_reference {
	explicit _vx_tensor_t(vx_context context) : _vx_reference(VX_TYPE_TENSOR, context) { }
	void teardown() override;

	bool resolved() const { return !dims.empty() && dataType != VX_TYPE_INVALID; }
	vx_size elementSize() const;
	/* Of the elements packed: what the DLA and the lowering work on. */
	vx_size byteSize() const;
	/* Bytes from one element to the next along each dimension: packed,
	 * the application's (from handle), or the root's (a view). */
	std::vector<vx_size> strides() const;
	/* Element (0, ..., 0), laid out by strides(); null when there is no
	 * memory (a from-handle tensor swapped out). */
	uint8_t *storage();

	std::vector<vx_size> dims;
	vx_enum dataType = VX_TYPE_INVALID;
	vx_int8 fixedPointPosition = 0;
	bool isVirtual = false;
	/* Virtual tensors the application left (partly) unspecified are
	 * completed from the producer's meta format at each verification. */
	bool specifiedAtCreation = true;
	vx_graph scope = nullptr;
	std::vector<uint8_t> data;
	/* Memory of a target holding the elements instead of data, once a
	 * node on that target uses the tensor (vdla::vx::dla::placeOnDevice()). */
	std::shared_ptr<vdla::vx::PlacedMemory> placed;
	/*
	 * CPU kernels computing from data without the API lock right now,
	 * and host storage dropped meanwhile, freed when the last one ends:
	 * their pointers stay valid (nn::runOnCpu()).
	 */
	unsigned cpuUsers = 0;
	std::vector<std::vector<uint8_t>> retired;
	/* Frees data, or retires it while CPU kernels use it; API lock held. */
	void dropHostData();
	std::map<vx_map_id, vx_enum> maps;
	vx_map_id nextMapId = 1;

	/* vxCreateTensorFromHandle: the application's memory (null while
	 * swapped out) and its strides. */
	bool fromHandle = false;
	uint8_t *handle = nullptr;
	std::vector<vx_size> handleStrides;
	/*
	 * vdla::vx::createTensorFromBuffer(): placed is the application's
	 * device buffer for good, never replaced or dropped; storage() is
	 * its CPU mapping or null, never host memory of the tensor's own.
	 * readOnly: so is the buffer, and nothing may write the tensor.
	 */
	bool externalBuffer = false;
	bool readOnly = false;
	/*
	 * A view (vxCreateTensorFromView) owns no memory: it is the box of
	 * root's elements starting at rootStart, root being the tensor at
	 * the top of its chain of parents, which it keeps alive. Null root:
	 * the tensor owns its memory.
	 */
	vx_tensor root = nullptr;
	std::vector<vx_size> rootStart;
	/* On the tensor owning memory: mappings open on it or any view. */
	unsigned openMaps = 0;
	/* Bumped at every write by the application (copy, map for writing,
	 * handle swap) to memory this tensor owns: a DLA plan that copied
	 * values at verification (biases) sees them change. */
	uint64_t writes = 0;
};

struct _vx_image : _vx_reference {
	explicit _vx_image(vx_context context) : _vx_reference(VX_TYPE_IMAGE, context) { }
	void teardown() override;

	bool resolved() const { return width && height && format != VX_DF_IMAGE_VIRT; }
	/* Back to what the application asked for: a virtual image's other
	 * attributes come from the producer's meta format at each
	 * verification. */
	void forgetDerived();

	/* The application's memory of one plane (from-handle images); ptr
	 * is null while the image is swapped out. */
	struct HandlePlane {
		uint8_t *ptr;
		vx_int32 strideX;
		vx_int32 strideY;
	};

	/* A mapping; patches that cannot point into the image (VX_NOGAP_X on
	 * padded memory) go through shadow and are written back on unmap. */
	struct Mapping {
		vx_enum usage;
		vx_uint32 plane;
		vx_rectangle_t rect;
		std::vector<uint8_t> shadow;
	};

	vx_uint32 width = 0;
	vx_uint32 height = 0;
	vx_df_image format = VX_DF_IMAGE_VIRT;
	vx_uint32 requestedWidth = 0;
	vx_uint32 requestedHeight = 0;
	vx_df_image requestedFormat = VX_DF_IMAGE_VIRT;
	vx_enum space = VX_COLOR_SPACE_NONE;
	vx_enum memoryType = VX_MEMORY_TYPE_NONE;
	bool isUniform = false;
	vx_pixel_value_t uniformValue = {};
	bool isVirtual = false;
	vx_graph scope = nullptr;
	vx_rectangle_t validRect = {};

	/* Planes one after the other in data, allocated on first access,
	 * unless memoryType is VX_MEMORY_TYPE_HOST: then in handle. */
	std::vector<uint8_t> data;
	std::vector<HandlePlane> handle;
	std::map<vx_map_id, Mapping> maps;
	vx_map_id nextMapId = 1;

	/*
	 * A sub-image (vxCreateImageFromROI, vxCreateImageFromChannel) owns
	 * no memory: it views part of root's, the image at the top of its
	 * chain of parents, which it keeps alive. Pixel (x, y) of the view
	 * is pixel (originX + x * scaleX, originY + y * scaleY) of the root;
	 * plane p of the view is plane rootPlanes[p] of the root. Null root:
	 * the image owns its memory.
	 */
	vx_image root = nullptr;
	vx_uint32 originX = 0, originY = 0;
	vx_uint32 scaleX = 1, scaleY = 1;
	std::vector<vx_uint32> rootPlanes;
	/* On the image owning memory: mappings open on it or any view. */
	vx_uint32 openMaps = 0;
};

/*
 * An object array (vxCreateObjectArray): items made like the exemplar,
 * each held with an internal count; a virtual array's items are virtual
 * objects of its graph.
 */
struct _vx_object_array : _vx_reference {
	explicit _vx_object_array(vx_context context)
		: _vx_reference(VX_TYPE_OBJECT_ARRAY, context)
	{
	}
	void teardown() override;

	vx_enum itemType = VX_TYPE_INVALID;
	std::vector<vx_reference> items;
	bool isVirtual = false;
	vx_graph scope = nullptr;
};

struct _vx_meta_format : _vx_reference {
	_vx_meta_format(vx_context context, vx_enum objectType)
		: _vx_reference(VX_TYPE_META_FORMAT, context), objectType(objectType)
	{
	}

	vx_enum objectType;
	std::vector<vx_size> dims;
	vx_enum tensorType = VX_TYPE_INVALID;
	vx_int8 fixedPointPosition = 0;
	bool fixedPointSet = false;
	vx_enum scalarType = VX_TYPE_INVALID;
	/* 0 and VX_DF_IMAGE_VIRT: not set by the validator. */
	vx_uint32 imageWidth = 0;
	vx_uint32 imageHeight = 0;
	vx_df_image imageFormat = VX_DF_IMAGE_VIRT;
	vx_kernel_image_valid_rectangle_f validRectangle = nullptr;
};

enum class NodeCallbackPhase { None, Initialize, Deinitialize };

struct _vx_node : _vx_reference {
	explicit _vx_node(vx_context context) : _vx_reference(VX_TYPE_NODE, context) { }
	~_vx_node() override;
	void teardown() override;

	vx_kernel kernel = nullptr;
	vx_graph graph = nullptr;
	std::vector<vx_reference> parameters;
	vx_status status = VX_SUCCESS;
	vx_perf_t perf = {};
	vx_border_t border = {};
	vx_nodecomplete_f callback = nullptr;
	/* Per parameter, from the last verification's meta formats. */
	std::vector<vx_kernel_image_valid_rectangle_f> validRectangle;
	NodeTarget target = NodeTarget::Any;
	/* Chosen at verification: the target the node runs on, and whether
	 * it runs inside the work of the node before it (a fused chain). */
	vdla::vx::Target *placedOn = nullptr;
	bool fused = false;

	vx_size localDataSize = 0;
	void *localDataPtr = nullptr;
	/* The pointer came from the implementation, which frees it. */
	bool localDataOwned = false;
	bool initialized = false;
	NodeCallbackPhase phase = NodeCallbackPhase::None;

	/*
	 * vxReplicateNode: per parameter, whether it iterates over the object
	 * array its item 0 is bound from (empty: not replicated).
	 * Verification makes the replicas (framework/replicate.cpp).
	 */
	std::vector<vx_bool> replicateFlags;
	/* Per parameter bound to an item of an object array, that array: held
	 * so that the node may be replicated over its other items whatever
	 * handles the application released. */
	std::vector<vx_object_array> itemArrays;
	/* On a replica: the node it replicates; replicas are the
	 * implementation's own, reachable by no handle of the application. */
	vx_node replicaOf = nullptr;
};

struct _vx_parameter : _vx_reference {
	explicit _vx_parameter(vx_context context) : _vx_reference(VX_TYPE_PARAMETER, context) { }
	void teardown() override;

	vx_kernel kernel = nullptr;
	vx_node node = nullptr;
	vx_uint32 index = 0;
};

struct _vx_graph : _vx_reference {
	explicit _vx_graph(vx_context context) : _vx_reference(VX_TYPE_GRAPH, context) { }
	void onUnreachable() override;
	void teardown() override;

	struct Parameter {
		vx_node node;
		vx_uint32 index;
	};

	std::vector<vx_node> nodes;
	/* Execution order computed at verification. */
	std::vector<vx_node> order;
	std::vector<Parameter> parameters;
	bool verified = false;
	vx_enum state = VX_GRAPH_STATE_UNVERIFIED;
	vx_perf_t perf = {};

	/* How verification planned the graph: the work of each target
	 * (framework/schedule.h). */
	std::shared_ptr<vdla::vx::Schedule> schedule;
	/* The work names buffers, values or callbacks that changed since it
	 * was planned: planned again before the next run. */
	bool scheduleStale = false;
	/* The memory groups the order was computed on (orderNodes()), and
	 * the context's handleSwaps they were last checked at; null while
	 * orderStale after a rebinding (they may name a released object). */
	std::shared_ptr<const vdla::vx::MemoryGroups> memory;
	uint64_t handleSwapsSeen = 0;
	/* A parameter was rebound to another object of the same meta data,
	 * or a handle swap made application buffers overlap differently: the
	 * order, the writers and the DLA tasks are judged again before the
	 * next run. No user callback runs for that (meta data did not change,
	 * so the graph stays verified). */
	bool orderStale = false;
	/* Since the order went stale, something changed that the plans
	 * cannot take by retargeting (handle swaps that make application
	 * memory overlap differently, a rebinding of another object than a
	 * tensor, or to or from a virtual one): they are built again. */
	bool needsNewPlan = false;
	/* Times the graph was planned (VX_GRAPH_VDLA_PLANS). */
	vx_uint32 plans = 0;

	std::thread worker;
	bool scheduled = false;
	/* In vxProcessGraph on some thread (which drops the API lock while
	 * kernels run): the graph and its context must not go meanwhile. */
	bool processing = false;
	vx_status asyncStatus = VX_SUCCESS;
	/* What the next run waits for before it starts
	 * (vdla::vx::setGraphWaitFences()); the run takes them. */
	std::vector<vdla::SyncFence> waitFences;
};

namespace vdla::vx {

std::recursive_mutex &apiLock();
using ApiLock = std::unique_lock<std::recursive_mutex>;

enum class Count { External, Internal };

void registerReference(vx_reference ref, Count initial);
/*
 * Registers @object, made with make_unique and filled in, and hands it
 * over. Whatever throws before leaves nothing behind; the caller does
 * nothing that can throw after (or undoes it), or the object would stay
 * registered with no owner.
 */
template <typename T> T *registerNew(std::unique_ptr<T> object, Count initial)
{
	registerReference(object.get(), initial);
	return object.release();
}

/*
 * Room for one more element of @list, growing it as push_back would (so
 * that a list built one element at a time stays linear): an object made
 * after this is not lost to a failing push_back.
 */
template <typename T> void reserveOneMore(std::vector<T> &list)
{
	if (list.size() == list.capacity())
		list.reserve(std::max<size_t>(4, 2 * list.size()));
}
/* Whether ref is a live object of the given type (VX_TYPE_REFERENCE: any
 * type but error objects). */
bool isValid(const void *ref, vx_enum type = VX_TYPE_REFERENCE);
/* Whether @node is a live node the application may change: not a replica
 * (vxReplicateNode), which the implementation makes and changes alone. */
inline bool isReachableNode(vx_node node)
{
	return isValid(node, VX_TYPE_NODE) && !node->replicaOf;
}
void retain(vx_reference ref, Count count);
void release(vx_reference ref, Count count);
/* Deletes every object of a context, then the context. */
void destroyContext(vx_context context);
std::vector<vx_reference> referencesOf(vx_context context);

vx_reference errorObject(vx_context context, vx_status status);
template <typename T> T errorAs(vx_context context, vx_status status)
{
	return reinterpret_cast<T>(errorObject(context, status));
}

/* Publishes one of the context's own kernels (not a user kernel), finalized. */
void addStandardKernel(vx_context context, const char *name, vx_enum enumeration,
	vx_kernel_f function, vx_kernel_validate_f validate,
	const std::vector<KernelParameter> &parameters);

/*
 * The scalars a node creation function makes from its arguments. The node
 * holds its own references, so these handles go when the call returns.
 */
class ScalarArguments
{
public:
	explicit ScalarArguments(vx_context context) : context_(context) { }
	ScalarArguments(const ScalarArguments &) = delete;
	ScalarArguments &operator=(const ScalarArguments &) = delete;
	~ScalarArguments()
	{
		for (vx_scalar &scalar : scalars_)
			vxReleaseScalar(&scalar);
	}

	vx_reference size(vx_size value) { return this->value(VX_TYPE_SIZE, value); }
	vx_reference enumeration(vx_enum value) { return this->value(VX_TYPE_ENUM, value); }
	vx_reference float32(vx_float32 value) { return this->value(VX_TYPE_FLOAT32, value); }
	/* A scalar of @type (a struct type's size must be known) holding @value. */
	template <typename T> vx_reference value(vx_enum type, const T &value)
	{
		/* Room first: a scalar made must not be lost to a failing push_back. */
		reserveOneMore(scalars_);
		scalars_.push_back(vxCreateScalar(context_, type, &value));
		return reinterpret_cast<vx_reference>(scalars_.back());
	}

private:
	vx_context context_;
	std::vector<vx_scalar> scalars_;
};

/*
 * A node of the kernel @kernelEnum in @graph with @parameters set in order
 * (the creation functions of the standard kernels); when one is refused,
 * an error object with its status, and no node left behind.
 */
vx_node createKernelNode(
	vx_graph graph, vx_enum kernelEnum, std::initializer_list<vx_reference> parameters);

void log(vx_reference ref, vx_status status, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* Attribute helpers: the size must match the attribute's type exactly. */
template <typename T> vx_status readAttribute(const void *ptr, vx_size size, T &out)
{
	if (!ptr || size != sizeof(T))
		return VX_ERROR_INVALID_PARAMETERS;
	out = *static_cast<const T *>(ptr);
	return VX_SUCCESS;
}

template <typename T> vx_status writeAttribute(void *ptr, vx_size size, const T &value)
{
	if (!ptr || size != sizeof(T))
		return VX_ERROR_INVALID_PARAMETERS;
	*static_cast<T *>(ptr) = value;
	return VX_SUCCESS;
}

/* Map and copy: host memory, and a usage the function accepts. */
vx_status checkMemory(vx_enum usage, vx_enum memoryType, bool allowReadWrite);
/* Virtual objects are reachable only from the kernels of their graph, while
 * it runs (VX_ERROR_OPTIMIZED_AWAY otherwise). */
vx_status checkAccessible(bool isVirtual, vx_graph scope);

vx_size typeSize(vx_enum type);
/* Bytes of a scalar of @type in @context: typeSize(), or the size registered
 * for a user struct (user_struct.cpp); 0 when neither knows it. */
vx_size scalarTypeSize(vx_context context, vx_enum type);
bool isTensorType(vx_enum type);
/*
 * Whether a tensor of @count dimensions @dims of @elementSize-byte
 * elements has a byte size vx_size holds, below 2^48: larger requests
 * (whose size would wrap around) are refused with VX_ERROR_INVALID_DIMENSION
 * instead of indexing past a wrapped allocation.
 */
bool tensorSizeFits(const vx_size *dims, vx_size count, vx_size elementSize);
/* Same object type and the same meta data (dimensions, element types,
 * image size and format). */
bool sameMetaData(vx_reference a, vx_reference b);
/* Reads a vx_border_t attribute: the size must match and the mode be one
 * of the three (VX_ERROR_INVALID_VALUE otherwise). */
vx_status readBorder(const void *ptr, vx_size size, vx_border_t &border);
/* Whether ref may be bound to a kernel parameter declared with type. */
bool matchesParameterType(vx_enum type, vx_reference ref);
/* The object type a meta format of a parameter describes: that of the
 * object @bound to it, else the declared one (a scalar for element types). */
vx_enum parameterObjectType(vx_enum declaredType, vx_reference bound);

/* Images in graphs (image.cpp). */
/* Checks an image output against its meta format, or completes a virtual
 * one from it. */
vx_status applyImageMeta(vx_meta_format meta, vx_image image);
/* Sets the valid rectangles of the node's output images, through the
 * kernel's VX_VALID_RECT_CALLBACK where it has one. */
vx_status updateValidRectangles(vx_node node);
/* The object owning @ref's memory: the root of a sub-image or tensor view,
 * else @ref. */
vx_reference memoryOwnerOf(vx_reference ref);
/* Whether @a and @b use some of the same memory: the same object, images
 * with overlapping parts of one root's planes (image_view.cpp), tensor
 * views whose boxes of one root intersect, or tensors on overlapping
 * application memory (tensor_layout.cpp). */
bool sharesMemory(vx_reference a, vx_reference b);

/*
 * Keys for the memory a graph's nodes touch, such that objects that may
 * share memory have one key: the object owning the memory
 * (memoryOwnerOf()), except that tensors, or images, on the application's
 * memory whose byte ranges overlap, directly or through others, share one
 * key. Judged on the handles when it is built (at verification).
 */
class MemoryGroups
{
public:
	explicit MemoryGroups(vx_graph graph);
	vx_reference of(vx_reference ref) const;
	/* Whether the same pairs of the application's tensors and images
	 * overlap now as when the groups were built: a handle swap may have
	 * changed them. */
	bool overlapsUnchanged() const;
	/* The tensors and images on the application's memory (from handle)
	 * that the graph's nodes touch, by the objects owning that memory. */
	const std::vector<vx_reference> &owners() const { return owners_; }

private:
	/* The pairs of @owners_ (indices, larger first) whose memory overlaps. */
	std::vector<std::pair<size_t, size_t>> overlappingPairs() const;

	std::vector<vx_reference> owners_;
	std::vector<std::pair<size_t, size_t>> overlaps_;
	std::map<vx_reference, vx_reference> merged_;
};

/* Graph internals shared between files. */
/* One more execution of @duration ns between @begin and @end in @perf. */
void addPerfSample(vx_perf_t &perf, vx_uint64 begin, vx_uint64 end, vx_uint64 duration);
void detachNode(vx_node node);
/* Replication (replicate.cpp). */
/* Phase "replicate" of verification: the replicas made anew. */
vx_status expandReplicas(vx_graph graph);
/* Takes @node's replicas out of its graph. */
void removeReplicas(vx_node node);
/* After parameter @index of @node was bound: holds the array of the new
 * object if it is an item, lets go of the old one's. */
void holdItemArray(vx_node node, vx_uint32 index);
/* Releases the arrays @node holds (its teardown). */
void releaseItemArrays(vx_node node);
/* The tensors among @node's parameters of @direction (VX_INPUT, VX_OUTPUT). */
std::vector<vx_tensor> tensorsOf(vx_node node, vx_enum direction);

/*
 * Sets graph->order, from the memory groups in graph->memory, so that
 * every producer runs before its consumers,
 * keeping nodes of one run (runOf: e.g. DLA or CPU) together where the
 * dependencies allow, so that they make fewer steps. Errors:
 * VX_ERROR_MULTIPLE_WRITERS, VX_ERROR_INVALID_GRAPH (a cycle).
 */
vx_status orderNodes(vx_graph graph, const std::function<unsigned(vx_node)> &runOf = nullptr);
void markUnverified(vx_graph graph);
void waitForWorker(vx_graph graph, ApiLock &lock);

/* Built-in kernels, added to each new context. */
void addBuiltinKernels(vx_context context);
/* The neural-network extension's kernels (nn_kernels.cpp), likewise. */
void addLayerKernels(vx_context context);

} /* namespace vdla::vx */
