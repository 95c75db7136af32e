/* SPDX-License-Identifier: MIT */
/*
 * ONNX models in libvdla (docs/onnx.md): load a model file, check it, bind
 * the shapes of its inputs, and run it. A model is imported once into the
 * runtime's own graph (operators, attributes, constant tensors); each run
 * takes named input tensors and returns the graph's outputs in order.
 *
 * Tensors are dense, row-major, in the element types of ONNX's TensorProto
 * (the enum values are the same). Only the types an operator of docs/onnx.md
 * uses are accepted: no strings, no complex numbers.
 */
#pragma once

#include <vdla/result.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vdla::onnx {

/* TensorProto.DataType values. */
enum class DataType : int32_t {
	Undefined = 0,
	Float = 1,
	Uint8 = 2,
	Int8 = 3,
	Uint16 = 4,
	Int16 = 5,
	Int32 = 6,
	Int64 = 7,
	Bool = 9,
	Float16 = 10,
	Double = 11,
	Uint32 = 12,
	Uint64 = 13,
};

/* Bytes per element, 0 for a type libvdla does not hold. */
size_t dataTypeSize(DataType type);
/* "float", "int8", ...: the names of the ONNX specification. */
const char *dataTypeName(DataType type);

class Tensor
{
public:
	Tensor() = default;
	/* Zero-filled. */
	Tensor(DataType type, std::vector<int64_t> shape);

	DataType type() const { return type_; }
	const std::vector<int64_t> &shape() const { return shape_; }
	size_t rank() const { return shape_.size(); }
	/* Elements; 1 for a scalar (rank 0). */
	int64_t elements() const;
	size_t bytes() const { return data_.size(); }
	/* False for a default-constructed Tensor (an absent optional value). */
	bool defined() const { return type_ != DataType::Undefined; }

	void *raw() { return data_.data(); }
	const void *raw() const { return data_.data(); }

	/* The elements as T; T must match type(), checked (std::logic_error). */
	template<typename T>
	T *data();
	template<typename T>
	const T *data() const;

	/* The same elements under another shape of as many elements. */
	Tensor reshaped(std::vector<int64_t> shape) const;

	/* "float[1,3,224,224]". */
	std::string describe() const;

private:
	DataType type_ = DataType::Undefined;
	std::vector<int64_t> shape_;
	std::vector<uint8_t> data_;
};

/* A serialised TensorProto (the test_data_set_N/input_J.pb files). */
Result<Tensor> readTensorFile(const std::string &path, std::string *name = nullptr);
Result<void> writeTensorFile(const std::string &path, const Tensor &tensor,
			     const std::string &name);

/* A graph input or output as the model declares it; -1 for a free dimension. */
struct ValueInfo {
	std::string name;
	DataType type;
	std::vector<int64_t> shape;
};

/* Where the operators of a run execute (docs/onnx.md, "Targets"). */
enum class Target {
	/* Every node on the CPU kernels. */
	Cpu,
	/* Every node on the vDLA; a node it cannot run fails the run (ENOTSUP, with why). */
	Dla,
	/* Each node on the vDLA where it can, the others on the CPU. */
	Any,
};

/*
 * Where a node ran and for how long: a CPU node's wall time, or a DLA
 * segment's (copies in and out included), named "first .. last" of
 * operator "DLA segment". A segment's @parts are its ONNX nodes in order,
 * each with the device time of the operations it was lowered to (0 for a
 * node fused into another, as a Relu into its convolution, or that only
 * renames a value).
 */
struct NodeTiming {
	std::string node;
	std::string opType;
	Target target;
	uint64_t nanoseconds;
	std::vector<NodeTiming> parts = {};
};

class Graph;
class DlaRuntime;

class Model
{
public:
	/*
	 * Reads, checks (onnx::checker) and imports a model. The error names
	 * the first node or operator that cannot be imported.
	 */
	static Result<std::unique_ptr<Model>> load(const std::string &path);
	~Model();

	/* The inputs a run must bind (initialisers excluded), and the outputs. */
	const std::vector<ValueInfo> &inputs() const;
	const std::vector<ValueInfo> &outputs() const;
	/* The operator types the graph uses, e.g. {"Conv", "Relu"}. */
	std::vector<std::string> opTypes() const;

	/*
	 * Runs the graph with the inputs in the order of inputs(). Inputs are
	 * checked against the declared types and fixed dimensions. With the DLA,
	 * the first run of each set of input shapes also runs the graph on the
	 * CPU once, to learn every value's shape, and prepares the DLA's part;
	 * later runs of those shapes only execute. The DLA is the first vdla
	 * device, or the one VDLA_VX_DEVICE names.
	 */
	Result<std::vector<Tensor>> run(const std::vector<Tensor> &inputs, Target target,
					std::vector<NodeTiming> *timings = nullptr) const;

private:
	explicit Model(std::unique_ptr<Graph> graph);
	std::unique_ptr<Graph> graph_;
	std::unique_ptr<DlaRuntime> dla_;
};

/* The operator types the CPU runs, sorted. */
std::vector<std::string> cpuOperators();

} /* namespace vdla::onnx */
