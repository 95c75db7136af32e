/* SPDX-License-Identifier: MIT */
/* Object-detection operators: NonMaxSuppression and RoiAlign. */

#include "quant_ops.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <numeric>

namespace vdla::onnx {

namespace {

struct Box {
	float top, left, bottom, right;
};

/* center_point_box 0: [y1, x1, y2, x2], any two opposite corners; 1: [x, y, width, height]. */
Box readBox(const float *b, bool centred)
{
	if (centred)
		return { b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2 };
	return { std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]),
		 std::max(b[1], b[3]) };
}

float intersectionOverUnion(const Box &a, const Box &b)
{
	const float areaA = (a.bottom - a.top) * (a.right - a.left);
	const float areaB = (b.bottom - b.top) * (b.right - b.left);
	if (areaA <= 0 || areaB <= 0)
		return 0;
	const float height = std::min(a.bottom, b.bottom) - std::max(a.top, b.top);
	const float width = std::min(a.right, b.right) - std::max(a.left, b.left);
	if (height <= 0 || width <= 0)
		return 0;
	const float intersection = height * width;
	return intersection / (areaA + areaB - intersection);
}

/* A single-value input as float or int64; `fallback` when absent or empty. */
float scalarFloat(const OpContext &ctx, size_t input, const char *what, float fallback)
{
	if (!ctx.hasInput(input) || ctx.input(input).elements() == 0)
		return fallback;
	const Tensor &t = ctx.input(input);
	ctx.require(t.type() == DataType::Float && t.elements() == 1,
		    std::string(what) + " must be a single float, not " + t.describe());
	return t.data<float>()[0];
}

/*
 * NonMaxSuppression: per batch and class, the boxes scoring above
 * score_threshold, taken by decreasing score (a tie by lower index), each
 * kept unless its IoU with one already kept exceeds iou_threshold, until
 * max_output_boxes_per_class are kept. Output [kept, 3] of
 * (batch, class, box), batch by batch, class by class, in the order kept.
 */
void nonMaxSuppression(OpContext &ctx)
{
	const Tensor &boxes = ctx.input(0);
	const Tensor &scores = ctx.input(1);
	ctx.require(boxes.type() == DataType::Float && boxes.rank() == 3 &&
			    boxes.shape()[2] == 4,
		    "boxes must be float[batch, boxes, 4], not " + boxes.describe());
	ctx.require(scores.type() == DataType::Float && scores.rank() == 3 &&
			    scores.shape()[0] == boxes.shape()[0] &&
			    scores.shape()[2] == boxes.shape()[1],
		    "scores must be float[batch, classes, boxes] for boxes " + boxes.describe() +
			    ", not " + scores.describe());
	int64_t maxPerClass = 0;
	if (ctx.hasInput(2) && ctx.input(2).elements() > 0) {
		const Tensor &t = ctx.input(2);
		ctx.require(t.type() == DataType::Int64 && t.elements() == 1,
			    "max_output_boxes_per_class must be a single int64");
		maxPerClass = std::max<int64_t>(t.data<int64_t>()[0], 0);
	}
	const float iouThreshold = scalarFloat(ctx, 3, "iou_threshold", 0);
	ctx.require(iouThreshold >= 0 && iouThreshold <= 1, "iou_threshold must be in [0, 1]");
	const bool hasScoreThreshold = ctx.hasInput(4) && ctx.input(4).elements() > 0;
	const float scoreThreshold = scalarFloat(ctx, 4, "score_threshold", 0);
	const int64_t centre = ctx.intAttribute("center_point_box", 0);
	ctx.require(centre == 0 || centre == 1, "attribute 'center_point_box' must be 0 or 1");

	const int64_t batches = boxes.shape()[0], count = boxes.shape()[1];
	const int64_t classes = scores.shape()[1];
	std::vector<int64_t> selected;
	for (int64_t b = 0; b < batches; b++) {
		std::vector<Box> all(count);
		for (int64_t i = 0; i < count; i++)
			all[i] = readBox(boxes.data<float>() + (b * count + i) * 4, centre == 1);
		for (int64_t c = 0; c < classes; c++) {
			const float *score = scores.data<float>() + (b * classes + c) * count;
			std::vector<int64_t> candidates;
			for (int64_t i = 0; i < count; i++)
				if (!hasScoreThreshold || score[i] > scoreThreshold)
					candidates.push_back(i);
			std::stable_sort(candidates.begin(), candidates.end(),
					 [&](int64_t x, int64_t y) { return score[x] > score[y]; });
			std::vector<int64_t> kept;
			for (int64_t i : candidates) {
				if (int64_t(kept.size()) >= maxPerClass)
					break;
				bool suppressed = false;
				for (int64_t k : kept)
					suppressed = suppressed ||
						     intersectionOverUnion(all[i], all[k]) > iouThreshold;
				if (!suppressed)
					kept.push_back(i);
			}
			for (int64_t i : kept)
				selected.insert(selected.end(), { b, c, i });
		}
	}
	Tensor out(DataType::Int64, { int64_t(selected.size() / 3), 3 });
	std::copy(selected.begin(), selected.end(), out.data<int64_t>());
	ctx.setOutput(0, std::move(out));
}

/*
 * The bilinear value of a plane at (y, x), as RoiAlign samples it: 0 more
 * than one pixel outside, the edge's value between the edge and there.
 */
double bilinearSample(const float *plane, int64_t height, int64_t width, double y, double x)
{
	if (y < -1 || y > double(height) || x < -1 || x > double(width))
		return 0;
	y = std::max(y, 0.0);
	x = std::max(x, 0.0);
	int64_t y0 = int64_t(y), x0 = int64_t(x);
	int64_t y1 = y0 + 1, x1 = x0 + 1;
	if (y0 >= height - 1) {
		y0 = y1 = height - 1;
		y = double(y0);
	}
	if (x0 >= width - 1) {
		x0 = x1 = width - 1;
		x = double(x0);
	}
	const double ly = y - double(y0), lx = x - double(x0);
	const double hy = 1 - ly, hx = 1 - lx;
	return hy * hx * plane[y0 * width + x0] + hy * lx * plane[y0 * width + x1] +
	       ly * hx * plane[y1 * width + x0] + ly * lx * plane[y1 * width + x1];
}

/* A roi's start and extent in X's pixels. */
struct RoiBox {
	double x, y, width, height;
};

RoiBox roiBox(const float *roi, double spatialScale, bool halfPixel)
{
	const double offset = halfPixel ? 0.5 : 0;
	RoiBox box;
	box.x = roi[0] * spatialScale - offset;
	box.y = roi[1] * spatialScale - offset;
	box.width = roi[2] * spatialScale - offset - box.x;
	box.height = roi[3] * spatialScale - offset - box.y;
	/* Before half_pixel, a roi is at least one pixel on each side. */
	if (!halfPixel) {
		box.width = std::max(box.width, 1.0);
		box.height = std::max(box.height, 1.0);
	}
	return box;
}

/*
 * RoiAlign: each roi (x1, y1, x2, y2, times spatial_scale, less half a pixel
 * with half_pixel) is cut into output_height x output_width bins; each bin
 * is the average (or maximum) of a grid of bilinear samples, sampling_ratio
 * per bin side (or ceil(bin size) when 0).
 */
void roiAlign(OpContext &ctx)
{
	const Tensor &x = ctx.input(0);
	const Tensor &rois = ctx.input(1);
	const Tensor &batchIndices = ctx.input(2);
	ctx.require(x.type() == DataType::Float && x.rank() == 4,
		    "X must be float[N, C, H, W], not " + x.describe());
	ctx.require(rois.type() == DataType::Float && rois.rank() == 2 && rois.shape()[1] == 4,
		    "rois must be float[num_rois, 4], not " + rois.describe());
	const int64_t roiCount = rois.shape()[0];
	ctx.require(batchIndices.type() == DataType::Int64 && batchIndices.rank() == 1 &&
			    batchIndices.elements() == roiCount,
		    "batch_indices must be int64[num_rois], not " + batchIndices.describe());
	const std::string mode = ctx.stringAttribute("mode", "avg");
	ctx.require(mode == "avg" || mode == "max", "attribute 'mode' must be avg or max");
	const int64_t outHeight = ctx.intAttribute("output_height", 1);
	const int64_t outWidth = ctx.intAttribute("output_width", 1);
	const int64_t samplingRatio = ctx.intAttribute("sampling_ratio", 0);
	const double spatialScale = ctx.floatAttribute("spatial_scale", 1.0f);
	ctx.require(outHeight >= 1 && outWidth >= 1 && samplingRatio >= 0,
		    "output_height, output_width and sampling_ratio must be positive");
	ctx.require(std::isfinite(spatialScale), "attribute 'spatial_scale' must be finite");
	/* Opset 10 has no attribute and no half-pixel offset. */
	const std::string transform = ctx.stringAttribute(
		"coordinate_transformation_mode", ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
	ctx.require(transform == "half_pixel" || transform == "output_half_pixel",
		    "attribute 'coordinate_transformation_mode' must be half_pixel or "
		    "output_half_pixel");
	const bool halfPixel = transform == "half_pixel";

	const int64_t batch = x.shape()[0], channels = x.shape()[1];
	const int64_t height = x.shape()[2], width = x.shape()[3];
	ctx.require(roiCount == 0 || (height > 0 && width > 0), "X has no pixels to sample");
	for (int64_t i = 0; i < rois.elements(); i++)
		ctx.require(std::isfinite(rois.data<float>()[i]), "rois holds a value that is not finite");
	Tensor y(DataType::Float, { roiCount, channels, outHeight, outWidth });
	float *out = y.data<float>();
	/*
	 * Each roi's grid of samples per bin side, at most 2^12 each (so that
	 * their product cannot wrap), and the samples of all the rois held to
	 * 2^32 before any is taken.
	 */
	constexpr double kMaxSamples = double(int64_t(1) << 32);
	std::vector<RoiBox> boxes(roiCount);
	std::vector<int64_t> grids(2 * roiCount);
	double totalSamples = 0;
	for (int64_t r = 0; r < roiCount; r++) {
		boxes[r] = roiBox(rois.data<float>() + r * 4, spatialScale, halfPixel);
		const double roiHeight = boxes[r].height, roiWidth = boxes[r].width;
		/* An empty or inverted roi has no samples: its bins are 0. */
		const double autoY = std::max(0.0, std::ceil(roiHeight / double(outHeight)));
		const double autoX = std::max(0.0, std::ceil(roiWidth / double(outWidth)));
		const double sideY = samplingRatio > 0 ? double(samplingRatio) : autoY;
		const double sideX = samplingRatio > 0 ? double(samplingRatio) : autoX;
		ctx.require(sideY <= 4096 && sideX <= 4096,
			    "roi " + std::to_string(r) + " needs more than 4096 samples per bin side "
			    "(attribute 'sampling_ratio' or the roi's size)");
		grids[2 * r] = int64_t(sideY);
		grids[2 * r + 1] = int64_t(sideX);
		totalSamples += sideY * sideX * double(channels) * double(outHeight) * double(outWidth);
	}
	if (totalSamples > kMaxSamples)
		throw OpError(EAGAIN, "the rois need " + std::to_string(totalSamples) +
					      " samples, more than the 2^32 libvdla takes "
					      "(attribute 'sampling_ratio')");
	for (int64_t r = 0; r < roiCount; r++) {
		const int64_t n = batchIndices.data<int64_t>()[r];
		ctx.require(n >= 0 && n < batch, "batch_indices holds " + std::to_string(n) +
							 ", out of range for " + x.describe());
		const double startX = boxes[r].x, startY = boxes[r].y;
		const double binHeight = boxes[r].height / double(outHeight);
		const double binWidth = boxes[r].width / double(outWidth);
		const int64_t gridY = grids[2 * r], gridX = grids[2 * r + 1];
		const double samples = double(std::max<int64_t>(gridY * gridX, 1));
		for (int64_t c = 0; c < channels; c++) {
			const float *plane = x.data<float>() + (n * channels + c) * height * width;
			for (int64_t ph = 0; ph < outHeight; ph++) {
				for (int64_t pw = 0; pw < outWidth; pw++) {
					double sum = 0, best = -HUGE_VAL;
					for (int64_t iy = 0; iy < gridY; iy++) {
						const double sy = startY + double(ph) * binHeight +
								  (double(iy) + 0.5) * binHeight / double(gridY);
						for (int64_t ix = 0; ix < gridX; ix++) {
							const double sx = startX + double(pw) * binWidth +
									  (double(ix) + 0.5) * binWidth /
										  double(gridX);
							double v = bilinearSample(plane, height, width, sy, sx);
							sum += v;
							best = std::max(best, v);
						}
					}
					double value = mode == "avg" ? sum / samples
								     : (gridY > 0 && gridX > 0 ? best : 0);
					out[((r * channels + c) * outHeight + ph) * outWidth + pw] = float(value);
				}
			}
		}
	}
	ctx.setOutput(0, std::move(y));
}

} /* namespace */

void registerDetectionOps(OpRegistry &registry)
{
	registry.add("NonMaxSuppression", nonMaxSuppression);
	registry.add("RoiAlign", roiAlign);
}

} /* namespace vdla::onnx */
