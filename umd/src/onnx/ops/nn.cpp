/* SPDX-License-Identifier: MIT */
/*
 * Neural-network operators: convolution, pooling, matrix products,
 * normalisations, softmax, top-k and the recurrent layers. Each concern has
 * its file (nn_ops.h); this one registers them all.
 */

#include "nn_ops.h"

namespace vdla::onnx {

bool nextPosition(std::vector<int64_t> &position, const std::vector<int64_t> &dims)
{
	for (size_t i = position.size(); i-- > 0;) {
		if (++position[i] < dims[i])
			return true;
		position[i] = 0;
	}
	return false;
}

/* The product of dims, OpError (EINVAL) naming `what` if it overflows. */
static int64_t checkedProduct(const OpContext &ctx, const std::vector<int64_t> &dims,
			      const std::string &what)
{
	int64_t product = 1;
	for (int64_t d : dims)
		product = checkedMul(ctx, product, d, what + " " + shapeString(dims));
	return product;
}

WindowTable windowTable(const OpContext &ctx, const ConvGeometry &g)
{
	const size_t axes = g.kernel.size();
	WindowTable table;
	table.kernelSize = checkedProduct(ctx, g.kernel, "the kernel");
	table.outputSize = checkedProduct(ctx, g.outputSize, "the output");
	table.inputSize = checkedProduct(ctx, g.inputSize, "the padded input");
	checkScratch(ctx, checkedMul(ctx, table.kernelSize, table.outputSize, "the window table"),
		     sizeof(int64_t), "the window table (kernel times output positions)");
	table.offsets.resize(table.kernelSize * table.outputSize);

	if (!table.offsets.size())
		return table;

	const std::vector<int64_t> inputStrides = stridesOf(g.inputSize);
	std::vector<int64_t> k(axes, 0);
	int64_t *offset = table.offsets.data();
	do {
		std::vector<int64_t> o(axes, 0);
		do {
			bool inPadding = false;
			bool beyondPadding = false;
			int64_t at = 0;
			for (size_t i = 0; i < axes; i++) {
				int64_t x = o[i] * g.strides[i] - g.padBegin[i] + k[i] * g.dilations[i];
				if (x < -g.padBegin[i] || x >= g.inputSize[i] + g.padEnd[i])
					beyondPadding = true;
				else if (x < 0 || x >= g.inputSize[i])
					inPadding = true;
				else
					at += x * inputStrides[i];
			}
			*offset++ = beyondPadding ? WindowTable::kBeyondPadding
				    : inPadding	  ? WindowTable::kInPadding
						  : at;
		} while (nextPosition(o, g.outputSize));
	} while (nextPosition(k, g.kernel));
	return table;
}

void registerNnOps(OpRegistry &registry)
{
	registerConvOps(registry);
	registerConvTransposeOps(registry);
	registerPoolOps(registry);
	registerMatMulOps(registry);
	registerEinsumOps(registry);
	registerNormOps(registry);
	registerSoftmaxOps(registry);
	registerTopKOps(registry);
	registerRnnOps(registry);
}

} /* namespace vdla::onnx */
