/* SPDX-License-Identifier: MIT */
/* The window functions HannWindow, HammingWindow, BlackmanWindow, and MelWeightMatrix (opset 17). */

#include "signal_ops.h"

#include "shape_ops.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>

namespace vdla::onnx {

namespace {

/* Attribute output_datatype (float by default): a TensorProto.DataType, 1 to 16. */
DataType outputType(const OpContext &ctx)
{
	const int64_t type = ctx.intAttribute("output_datatype", 1);
	ctx.require(type >= 1 && type <= 16, ctx.node().opType + ": attribute 'output_datatype' (" +
						     std::to_string(type) + ") is not an ONNX type");
	return static_cast<DataType>(type);
}

/* The coefficients of a window w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N). */
struct CosineSum {
	double a0, a1, a2;
};

/*
 * A window of `size` samples (input 0). A periodic window (the default)
 * is one period of N = size samples; a symmetric one spans N = size - 1
 * intervals, its last sample equal to its first. A symmetric window of one
 * sample divides by N = 0 and is NaN, as in the operators' function bodies.
 */
OpKernel cosineWindow(CosineSum terms)
{
	return [terms](OpContext &ctx) {
		const int64_t size = scalarInteger(ctx, 0, "size");
		ctx.require(size >= 0, ctx.node().opType + ": size (" + std::to_string(size) +
					       ") is negative");
		const int64_t periodic = ctx.intAttribute("periodic", 1);
		ctx.require(periodic == 0 || periodic == 1,
			    ctx.node().opType + ": attribute 'periodic' must be 0 or 1");
		const DataType type = outputType(ctx);
		const double intervals = double(periodic ? size : size - 1);
		std::vector<double> window(size);
		for (int64_t n = 0; n < size; n++) {
			const double angle = 2 * kPi * double(n) / intervals;
			window[n] = terms.a0 - terms.a1 * std::cos(angle) +
				    terms.a2 * std::cos(2 * angle);
		}
		ctx.setOutput(0, tensorFromDoubles(ctx, window, type, { size }));
	};
}

/* The mel scale of a frequency in hertz, and back. */
double hertzToMel(double hertz)
{
	return 2595 * std::log10(1 + hertz / 700);
}

double melToHertz(double mel)
{
	return 700 * (std::pow(10, mel / 2595) - 1);
}

/*
 * MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins], column j the
 * triangular filter of mel band j, which rises from edge j to edge j + 1,
 * where it is 1, and falls to edge j + 2. The specification leaves the
 * edges to its reference, whose test data this follows: num_mel_bins + 2
 * edges from lower_edge_hertz in steps of 1 / (num_mel_bins + 2) of the
 * mel range (so the last edge stays below upper_edge_hertz), the edge of
 * frequency f on the spectrogram bin floor((dft_length + 1) f / sample_rate).
 */
void melWeightMatrix(OpContext &ctx)
{
	const int64_t melBins = scalarInteger(ctx, 0, "num_mel_bins");
	const int64_t dftLength = scalarInteger(ctx, 1, "dft_length");
	const int64_t sampleRate = scalarInteger(ctx, 2, "sample_rate");
	ctx.require(melBins >= 1 && melBins <= INT32_MAX,
		    "MelWeightMatrix: num_mel_bins must be in [1, 2^31)");
	ctx.require(dftLength >= 1, "MelWeightMatrix: dft_length must be positive");
	ctx.require(sampleRate >= 1, "MelWeightMatrix: sample_rate must be positive");
	const std::vector<double> lower = floatingElements(ctx, ctx.input(3), "lower_edge_hertz");
	const std::vector<double> upper = floatingElements(ctx, ctx.input(4), "upper_edge_hertz");
	ctx.require(lower.size() == 1 && upper.size() == 1,
		    "MelWeightMatrix: lower_edge_hertz and upper_edge_hertz must be one value each");
	ctx.require(lower[0] >= 0 && lower[0] < upper[0] && std::isfinite(upper[0]),
		    "MelWeightMatrix: the edges must be 0 <= lower_edge_hertz < upper_edge_hertz,"
		    " finite");
	const DataType type = outputType(ctx);
	const int64_t spectrumBins = dftLength / 2 + 1;
	checkedElements(ctx, { spectrumBins, melBins }, "output");

	const double lowMel = hertzToMel(lower[0]);
	const double melStep = (hertzToMel(upper[0]) - lowMel) / double(melBins + 2);
	std::vector<int64_t> edges(melBins + 2);
	for (int64_t e = 0; e < melBins + 2; e++) {
		const double hertz = melToHertz(lowMel + double(e) * melStep);
		const double bin = std::floor(double(dftLength + 1) * hertz / double(sampleRate));
		/* Beyond the spectrum an edge only sets slopes: kept where int64 holds it. */
		edges[e] = int64_t(std::min(bin, 0x1p62));
	}

	std::vector<double> weights(spectrumBins * melBins);
	for (int64_t j = 0; j < melBins; j++) {
		const int64_t low = edges[j], centre = edges[j + 1], high = edges[j + 2];
		for (int64_t bin = std::max<int64_t>(low, 0); bin <= std::min(high, spectrumBins - 1);
		     bin++) {
			double weight;
			if (bin < centre)
				weight = double(bin - low) / double(centre - low);
			else if (bin == centre)
				weight = 1;
			else
				weight = double(high - bin) / double(high - centre);
			weights[bin * melBins + j] = weight;
		}
	}
	ctx.setOutput(0, tensorFromDoubles(ctx, weights, type, { spectrumBins, melBins }));
}

} /* namespace */

void registerWindowOps(OpRegistry &registry)
{
	registry.add("HannWindow", cosineWindow({ 0.5, 0.5, 0 }));
	registry.add("HammingWindow", cosineWindow({ 25.0 / 46, 21.0 / 46, 0 }));
	registry.add("BlackmanWindow", cosineWindow({ 0.42, 0.5, 0.08 }));
	registry.add("MelWeightMatrix", melWeightMatrix);
}

} /* namespace vdla::onnx */
