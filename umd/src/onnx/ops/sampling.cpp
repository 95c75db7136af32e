/* SPDX-License-Identifier: MIT */
/* Sampling by index or coordinate: MaxUnpool and GridSample. */

#include "quant_ops.h"

#include <cerrno>
#include <cmath>
#include <cstring>

namespace vdla::onnx {

namespace {

/*
 * MaxUnpool: Y is zeros but for Y.flat[I[j]] = X[j]. I holds MaxPool's
 * indices, flat over the whole tensor [N, C, D1, ...] of spatial size
 * (in - 1) * stride + kernel - pads; output_shape may enlarge it.
 */
void maxUnpool(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const Tensor &indices = ctx.input(1);
	ctx.require(x.rank() >= 3, "X must be [N, C, D1, ...], not " + x.describe());
	ctx.require(indices.type() == DataType::Int64 && indices.shape() == x.shape(),
		    "I must be int64 of the shape of X " + x.describe() + ", not " +
			    indices.describe());
	const size_t axes = x.rank() - 2;
	std::vector<int64_t> kernel = ctx.intsAttribute("kernel_shape");
	std::vector<int64_t> strides = ctx.intsAttribute("strides", std::vector<int64_t>(axes, 1));
	std::vector<int64_t> pads = ctx.intsAttribute("pads", std::vector<int64_t>(2 * axes, 0));
	ctx.require(kernel.size() == axes && strides.size() == axes && pads.size() == 2 * axes,
		    "kernel_shape, strides and pads must have a value per spatial axis");

	std::vector<int64_t> shape = { x.shape()[0], x.shape()[1] };
	for (size_t a = 0; a < axes; a++) {
		ctx.require(kernel[a] >= 1 && strides[a] >= 1 && pads[a] >= 0 && pads[a + axes] >= 0,
			    "kernel_shape, strides and pads must be positive");
		shape.push_back((x.shape()[a + 2] - 1) * strides[a] + kernel[a] - pads[a] -
				pads[a + axes]);
	}
	for (int64_t d : shape)
		ctx.require(d >= 0, "the unpooled shape has a negative dimension");

	Tensor y(x.type(), shape);
	dispatchNumeric(ctx, x.type(), [&](auto zero) {
		using T = decltype(zero);
		const T *in = x.data<T>();
		const int64_t *at = indices.data<int64_t>();
		T *out = y.data<T>();
		for (int64_t i = 0; i < x.elements(); i++) {
			ctx.require(at[i] >= 0 && at[i] < y.elements(),
				    "I holds " + std::to_string(at[i]) + ", out of range for Y " +
					    y.describe());
			out[at[i]] = in[i];
		}
	});
	if (ctx.hasInput(2)) {
		/*
		 * output_shape only enlarges Y (by the sizes a stride left
		 * ambiguous): the indices keep their meaning in the shape computed
		 * above, whose elements keep their coordinates in the larger Y.
		 */
		std::vector<int64_t> given = toInt64s(ctx, ctx.input(2));
		ctx.require(given.size() == x.rank() && given[0] == shape[0] && given[1] == shape[1],
			    "output_shape must be [N, C, D1, ...] for X " + x.describe());
		for (size_t d = 2; d < given.size(); d++)
			ctx.require(given[d] >= shape[d],
				    "output_shape is smaller than the unpooled " + y.describe());
		Tensor larger(x.type(), given);
		const size_t size = dataTypeSize(x.type());
		const std::vector<int64_t> largerStrides = stridesOf(given);
		std::vector<int64_t> pos(shape.size(), 0);
		for (int64_t i = 0; i < y.elements(); i++) {
			int64_t to = 0;
			for (size_t d = 0; d < pos.size(); d++)
				to += pos[d] * largerStrides[d];
			std::memcpy(static_cast<uint8_t *>(larger.raw()) + to * size,
				    static_cast<const uint8_t *>(y.raw()) + i * size, size);
			for (size_t d = pos.size(); d-- > 0;) {
				if (++pos[d] < shape[d])
					break;
				pos[d] = 0;
			}
		}
		y = std::move(larger);
	}
	ctx.setOutput(0, std::move(y));
}

enum class Padding { Zeros, Border, Reflection };

struct GridParams {
	bool alignCorners;
	Padding padding;
};

/* A grid coordinate in [-1, 1] as a pixel coordinate of an axis of `size` pixels. */
double unnormalise(const GridParams &p, double coord, int64_t size)
{
	if (p.alignCorners)
		return (coord + 1) / 2 * double(size - 1);
	return ((coord + 1) * double(size) - 1) / 2;
}

/* x reflected into [low, high] as often as needed. */
double reflect(double x, double low, double high)
{
	if (high <= low)
		return low;
	const double span = high - low;
	double distance = std::fabs(x - low);
	const double flips = std::floor(distance / span);
	const double extra = distance - flips * span;
	return std::fmod(flips, 2.0) == 0 ? low + extra : high - extra;
}

/*
 * The padding modes on a pixel coordinate: border clamps it to the pixels,
 * reflection mirrors it at the edges (pixel centres with align_corners,
 * pixel borders without) and then clamps; zeros leaves it, pixels outside
 * reading as 0.
 */
double applyPadding(const GridParams &p, double x, int64_t size)
{
	if (p.padding == Padding::Zeros)
		return x;
	if (p.padding == Padding::Reflection)
		x = p.alignCorners ? reflect(x, 0, double(size - 1))
				   : reflect(x, -0.5, double(size) - 0.5);
	return std::min(std::max(x, 0.0), double(size - 1));
}

double pixel(const float *plane, int64_t height, int64_t width, int64_t y, int64_t x)
{
	return y < 0 || y >= height || x < 0 || x >= width ? 0 : plane[y * width + x];
}

/* Keys' cubic kernel with a = -0.75 at distance d. */
double cubic(double d)
{
	const double a = -0.75;
	d = std::fabs(d);
	if (d <= 1)
		return ((a + 2) * d - (a + 3)) * d * d + 1;
	if (d < 2)
		return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
	return 0;
}

/* Clamps a coordinate far outside to where every neighbour is outside, for the casts. */
double bounded(double x, int64_t size)
{
	return std::min(std::max(x, -4.0), double(size + 4));
}

/*
 * GridSample: Y[n, c, h, w] samples X[n, c] at Grid[n, h, w] = (x, y) in
 * [-1, 1], bilinear, nearest (rounding half to even) or bicubic (whose
 * 4 x 4 neighbours are each put through the padding mode).
 */
void gridSample(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const Tensor &grid = ctx.input(1);
	ctx.require(x.type() == DataType::Float && x.rank() == 4,
		    "X must be float[N, C, H, W], not " + x.describe());
	ctx.require(grid.type() == DataType::Float && grid.rank() == 4 &&
			    grid.shape()[0] == x.shape()[0] && grid.shape()[3] == 2,
		    "Grid must be float[N, H_out, W_out, 2], not " + grid.describe());
	GridParams p;
	p.alignCorners = ctx.intAttribute("align_corners", 0) != 0;
	const std::string mode = ctx.stringAttribute("mode", "bilinear");
	ctx.require(mode == "bilinear" || mode == "nearest" || mode == "bicubic",
		    "attribute 'mode' must be bilinear, nearest or bicubic");
	const std::string padding = ctx.stringAttribute("padding_mode", "zeros");
	if (padding == "zeros")
		p.padding = Padding::Zeros;
	else if (padding == "border")
		p.padding = Padding::Border;
	else if (padding == "reflection")
		p.padding = Padding::Reflection;
	else
		throw OpError(EINVAL, "attribute 'padding_mode' must be zeros, border or reflection");

	const int64_t batch = x.shape()[0], channels = x.shape()[1];
	const int64_t height = x.shape()[2], width = x.shape()[3];
	const int64_t outHeight = grid.shape()[1], outWidth = grid.shape()[2];
	Tensor y(DataType::Float, { batch, channels, outHeight, outWidth });
	float *out = y.data<float>();
	for (int64_t n = 0; n < batch; n++) {
		for (int64_t i = 0; i < outHeight * outWidth; i++) {
			const float *g = grid.data<float>() + (n * outHeight * outWidth + i) * 2;
			ctx.require(std::isfinite(g[0]) && std::isfinite(g[1]),
				    "Grid holds a value that is not finite");
			const double gx = unnormalise(p, g[0], width);
			const double gy = unnormalise(p, g[1], height);
			for (int64_t c = 0; c < channels; c++) {
				const float *plane = x.data<float>() + (n * channels + c) * height * width;
				double value = 0;
				if (mode == "nearest") {
					double px = bounded(applyPadding(p, gx, width), width);
					double py = bounded(applyPadding(p, gy, height), height);
					value = pixel(plane, height, width, int64_t(std::nearbyint(py)),
						      int64_t(std::nearbyint(px)));
				} else if (mode == "bilinear") {
					double px = bounded(applyPadding(p, gx, width), width);
					double py = bounded(applyPadding(p, gy, height), height);
					double fx = std::floor(px), fy = std::floor(py);
					double lx = px - fx, ly = py - fy;
					int64_t x0 = int64_t(fx), y0 = int64_t(fy);
					value = (1 - ly) * (1 - lx) * pixel(plane, height, width, y0, x0) +
						(1 - ly) * lx * pixel(plane, height, width, y0, x0 + 1) +
						ly * (1 - lx) * pixel(plane, height, width, y0 + 1, x0) +
						ly * lx * pixel(plane, height, width, y0 + 1, x0 + 1);
				} else {
					double px = bounded(gx, width), py = bounded(gy, height);
					double fx = std::floor(px), fy = std::floor(py);
					double tx = px - fx, ty = py - fy;
					for (int64_t j = -1; j <= 2; j++) {
						double row = applyPadding(p, fy + double(j), height);
						for (int64_t k = -1; k <= 2; k++) {
							double col = applyPadding(p, fx + double(k), width);
							value += cubic(ty - double(j)) * cubic(tx - double(k)) *
								 pixel(plane, height, width,
								       int64_t(std::floor(bounded(row, height))),
								       int64_t(std::floor(bounded(col, width))));
						}
					}
				}
				out[((n * channels + c) * outHeight) * outWidth + i] = float(value);
			}
		}
	}
	ctx.setOutput(0, std::move(y));
}

} /* namespace */

void registerSamplingOps(OpRegistry &registry)
{
	registry.add("MaxUnpool", maxUnpool);
	registry.add("GridSample", gridSample);
}

} /* namespace vdla::onnx */
