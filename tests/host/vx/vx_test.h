/* SPDX-License-Identifier: MIT */
/*
 * Shared fixture of the OpenVX tests: a fresh context per test and a user
 * kernel ("vdla.test.copy": tensor in, tensor out, optional scalar) whose
 * callbacks record what they saw in probe().
 */
#pragma once

#include <VX/vx.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

template <typename T> vx_reference ref(T object)
{
	return reinterpret_cast<vx_reference>(object);
}

struct Probe {
	std::vector<std::string> events;

	vx_size sizeAtValidate = ~vx_size(0);
	void *ptrAtValidate = reinterpret_cast<void *>(1);
	vx_size sizeAtInit = ~vx_size(0);
	void *ptrAtInit = reinterpret_cast<void *>(1);
	vx_size sizeAtRun = 0;
	void *ptrAtRun = nullptr;

	/* What initialize and deinitialize try, and what they got back. */
	vx_size initSetsSize = 0;
	void *initSetsPtr = nullptr;
	vx_status initSetStatus = VX_SUCCESS;
	bool deinitSetsPtr = false;
	vx_status deinitSetStatus = VX_SUCCESS;

	vx_status runStatus = VX_SUCCESS;
	std::function<vx_status(const vx_reference *, vx_meta_format *)> validator;
	std::function<void()> duringRun;
};

Probe &probe();

/* ---- Images ---- */

template <typename T> T query(vx_image image, vx_enum attribute)
{
	T value = {};
	EXPECT_EQ(vxQueryImage(image, attribute, &value, sizeof(value)), VX_SUCCESS);
	return value;
}

inline vx_image makeImage(vx_context context, vx_uint32 width, vx_uint32 height, vx_df_image format)
{
	vx_image image = vxCreateImage(context, width, height, format);
	EXPECT_EQ(vxGetStatus(ref(image)), VX_SUCCESS);
	return image;
}

inline vx_rectangle_t rectangle(vx_uint32 startX, vx_uint32 startY, vx_uint32 endX, vx_uint32 endY)
{
	return { startX, startY, endX, endY };
}

/* Registers and finalizes vdla.test.copy; the caller owns the handle. */
vx_kernel addCopyKernel(vx_context context, vx_size localDataSize = 0, bool withInit = true);

class VxTest : public ::testing::Test
{
protected:
	void SetUp() override;
	void TearDown() override;

	vx_tensor makeTensor(vx_enum type = VX_TYPE_FLOAT32, std::vector<vx_size> dims = { 4, 2 },
		vx_int8 fixedPointPosition = 0);
	vx_uint32 references();
	/* A graph with one copy node from a new tensor to a new tensor. */
	vx_node copyNode(vx_graph graph, vx_kernel kernel, vx_tensor *in = nullptr,
		vx_tensor *out = nullptr);

	vx_context context = nullptr;
};
