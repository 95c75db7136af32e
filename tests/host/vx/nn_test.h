/* SPDX-License-Identifier: MIT */
/*
 * What the neural-network suites share: tensors written and read as raw
 * values (integers) or floats, and a fixture with a graph whose tensors,
 * nodes and scalars are released before the context.
 */
#pragma once

#include "vx_test.h"

#include "nn/exact_sum.h"
#include "nn/nn_layers.h"
#include "framework/object.h"

#include <VX/vx_khr_nn.h>
#include <VX/vx_vdla.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

namespace nn = vdla::vx::nn;

namespace nn_test {

using Dims = std::vector<vx_size>;
using Values = std::vector<double>;

constexpr vx_enum kZero = VX_ROUND_POLICY_TO_ZERO;
constexpr vx_enum kEven = VX_ROUND_POLICY_TO_NEAREST_EVEN;
constexpr vx_enum kWrap = VX_CONVERT_POLICY_WRAP;
constexpr vx_enum kSaturate = VX_CONVERT_POLICY_SATURATE;
constexpr vx_enum kFloor = VX_NN_DS_SIZE_ROUNDING_FLOOR;
constexpr vx_enum kCeil = VX_NN_DS_SIZE_ROUNDING_CEILING;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

inline vx_size elementSize(vx_enum type)
{
	return type == VX_TYPE_INT8 || type == VX_TYPE_UINT8 ? 1 : type == VX_TYPE_INT16 ? 2 : 4;
}

inline Dims dimsOf(vx_tensor tensor)
{
	vx_size count = 0;
	vxQueryTensor(tensor, VX_TENSOR_NUMBER_OF_DIMS, &count, sizeof(count));
	Dims dims(count);
	vxQueryTensor(tensor, VX_TENSOR_DIMS, dims.data(), count * sizeof(vx_size));
	return dims;
}

inline vx_enum typeOf(vx_tensor tensor)
{
	vx_enum type = VX_TYPE_INVALID;
	vxQueryTensor(tensor, VX_TENSOR_DATA_TYPE, &type, sizeof(type));
	return type;
}

inline vx_int8 positionOf(vx_tensor tensor)
{
	vx_int8 position = 0;
	vxQueryTensor(tensor, VX_TENSOR_FIXED_POINT_POSITION, &position, sizeof(position));
	return position;
}

/* Copies the whole tensor to or from bytes, dense. */
inline void copyAll(vx_tensor tensor, std::vector<uint8_t> &bytes, vx_enum usage)
{
	const Dims dims = dimsOf(tensor);
	const Dims start(dims.size(), 0);
	Dims strides(dims.size());
	vx_size stride = elementSize(typeOf(tensor));
	for (size_t d = 0; d < dims.size(); d++) {
		strides[d] = stride;
		stride *= dims[d];
	}
	bytes.resize(stride);
	ASSERT_EQ(vxCopyTensorPatch(tensor, dims.size(), start.data(), dims.data(), strides.data(),
			  bytes.data(), usage, VX_MEMORY_TYPE_HOST),
		VX_SUCCESS);
}

template <typename T> void pack(const Values &values, std::vector<uint8_t> &bytes)
{
	for (size_t i = 0; i < values.size(); i++) {
		T value = static_cast<T>(values[i]);
		memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
	}
}

template <typename T> Values unpack(const std::vector<uint8_t> &bytes)
{
	Values values(bytes.size() / sizeof(T));
	for (size_t i = 0; i < values.size(); i++) {
		T value;
		memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
		values[i] = value;
	}
	return values;
}

inline void write(vx_tensor tensor, const Values &values)
{
	std::vector<uint8_t> bytes;
	copyAll(tensor, bytes, VX_READ_ONLY);
	ASSERT_EQ(bytes.size(), values.size() * elementSize(typeOf(tensor)));
	switch (typeOf(tensor)) {
	case VX_TYPE_INT8:
		pack<int8_t>(values, bytes);
		break;
	case VX_TYPE_UINT8:
		pack<uint8_t>(values, bytes);
		break;
	case VX_TYPE_INT16:
		pack<int16_t>(values, bytes);
		break;
	default:
		pack<float>(values, bytes);
	}
	copyAll(tensor, bytes, VX_WRITE_ONLY);
}

inline Values read(vx_tensor tensor)
{
	std::vector<uint8_t> bytes;
	copyAll(tensor, bytes, VX_READ_ONLY);
	switch (typeOf(tensor)) {
	case VX_TYPE_INT8:
		return unpack<int8_t>(bytes);
	case VX_TYPE_UINT8:
		return unpack<uint8_t>(bytes);
	case VX_TYPE_INT16:
		return unpack<int16_t>(bytes);
	default:
		return unpack<float>(bytes);
	}
}

inline void expectNear(const Values &actual, const Values &expected, double tolerance)
{
	ASSERT_EQ(actual.size(), expected.size());
	for (size_t i = 0; i < actual.size(); i++)
		EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
}

inline vx_nn_convolution_params_t convParams(vx_size padX = 0, vx_size padY = 0,
	vx_enum overflow = kSaturate, vx_enum rounding = kZero, vx_enum sizeRounding = kFloor,
	vx_size dilationX = 0, vx_size dilationY = 0)
{
	return { padX, padY, overflow, rounding, sizeRounding, dilationX, dilationY };
}

} /* namespace nn_test */

using namespace nn_test;

/* A graph per test; the tensors and nodes made through the helpers are
 * released before the context. */
class NnTest : public VxTest
{
protected:
	void SetUp() override
	{
		VxTest::SetUp();
		graph = vxCreateGraph(context);
	}

	void TearDown() override
	{
		for (vx_node &node : nodes)
			vxReleaseNode(&node);
		for (vx_tensor &tensor : tensors)
			vxReleaseTensor(&tensor);
		vxReleaseGraph(&graph);
		VxTest::TearDown();
	}

	vx_tensor tensor(
		vx_enum type, const Dims &dims, vx_int8 position = 0, const Values &values = {})
	{
		vx_tensor t = vxCreateTensor(context, dims.size(), dims.data(), type, position);
		EXPECT_EQ(vxGetStatus(ref(t)), VX_SUCCESS);
		tensors.push_back(t);
		if (!values.empty())
			write(t, values);
		return t;
	}

	/* Dimensions, type and position left to the producer. */
	vx_tensor virtualTensor()
	{
		vx_tensor t = vxCreateVirtualTensor(graph, 0, nullptr, VX_TYPE_INVALID, 0);
		tensors.push_back(t);
		return t;
	}

	vx_node keep(vx_node node)
	{
		EXPECT_EQ(vxGetStatus(ref(node)), VX_SUCCESS);
		nodes.push_back(node);
		return node;
	}

	vx_scalar scalar(vx_enum type, const void *value)
	{
		vx_scalar s = vxCreateScalar(context, type, value);
		scalars.push_back(s);
		return s;
	}

	vx_node convolution(vx_tensor in, vx_tensor weights, vx_tensor bias, vx_tensor out,
		const vx_nn_convolution_params_t &params)
	{
		return keep(
			vxConvolutionLayer(graph, in, weights, bias, &params, sizeof(params), out));
	}

	vx_graph graph = nullptr;
	std::vector<vx_tensor> tensors;
	std::vector<vx_node> nodes;
	std::vector<vx_scalar> scalars;
};
