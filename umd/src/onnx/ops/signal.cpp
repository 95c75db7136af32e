/* SPDX-License-Identifier: MIT */
/*
 * DFT and STFT (opset 17), computed in double by the direct sum of the
 * definition, O(n^2) per transform, and the helpers of the signal family.
 */

#include "signal_ops.h"

#include "elementwise_ops.h"
#include "float16.h"
#include "shape_ops.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <complex>

namespace vdla::onnx {

using Complex = std::complex<double>;

int64_t scalarInteger(const OpContext &ctx, size_t input, const char *what)
{
	const Tensor &tensor = ctx.input(input);
	ctx.require(tensor.elements() == 1, ctx.node().opType + ": " + what + " " +
						    tensor.describe() + " must be one integer");
	return toInt64s(ctx, tensor)[0];
}

std::vector<double> floatingElements(const OpContext &ctx, const Tensor &tensor,
				     const char *what)
{
	std::vector<double> values(tensor.elements());
	switch (tensor.type()) {
	case DataType::Float16: {
		const uint16_t *bits = static_cast<const uint16_t *>(tensor.raw());
		for (size_t i = 0; i < values.size(); i++)
			values[i] = float16ToFloat(bits[i]);
		break;
	}
	case DataType::Float:
		std::copy_n(tensor.data<float>(), values.size(), values.begin());
		break;
	case DataType::Double:
		std::copy_n(tensor.data<double>(), values.size(), values.begin());
		break;
	default:
		throw OpError(EINVAL, ctx.node().opType + ": " + what + " " + tensor.describe() +
					      " must be of float16, float or double");
	}
	return values;
}

Tensor tensorFromDoubles(const OpContext &ctx, const std::vector<double> &values,
			 DataType type, std::vector<int64_t> shape)
{
	Tensor doubles(DataType::Double, std::move(shape));
	std::copy(values.begin(), values.end(), doubles.data<double>());
	if (type == DataType::Float16)
		return float16FromTensor(doubles);
	Tensor out;
	dispatchNumeric(ctx, type, [&](auto zero) {
		using T = decltype(zero);
		out = mapElements<double, T>(doubles, type, fromDouble<T>);
	});
	return out;
}

namespace {

/*
 * The DFT of length n, forward (e^(-2 pi i k t / n)) or inverse (e^(+...),
 * divided by n). The factors come from a table of the n angles 2 pi m / n,
 * indexed by k t mod n, so that no angle grows with k t before its sine
 * and cosine are taken.
 */
class Dft
{
public:
	Dft(int64_t n, bool inverse)
		: n_(n), inverse_(inverse), factors_(n)
	{
		const double sign = inverse ? 1 : -1;
		for (int64_t m = 0; m < n; m++) {
			const double angle = sign * 2 * kPi * double(m) / double(n);
			factors_[m] = Complex(std::cos(angle), std::sin(angle));
		}
	}

	/*
	 * Bins 0 to bins - 1 (<= n) of the transform of x, `count` samples
	 * zero-padded or cut to n, into out.
	 */
	void transform(const Complex *x, int64_t count, int64_t bins, Complex *out) const
	{
		const int64_t used = std::min(count, n_);
		for (int64_t k = 0; k < bins; k++) {
			Complex sum = 0;
			/* m = k t mod n, stepped by k (< n) as t counts up. */
			int64_t m = 0;
			for (int64_t t = 0; t < used; t++) {
				sum += x[t] * factors_[m];
				m += k;
				if (m >= n_)
					m -= n_;
			}
			out[k] = inverse_ ? sum / double(n_) : sum;
		}
	}

private:
	int64_t n_;
	bool inverse_;
	std::vector<Complex> factors_;
};

/* The elements of a tensor whose last dimension is 1 (real) or 2 (complex), as complex. */
std::vector<Complex> complexElements(const OpContext &ctx, const Tensor &tensor, const char *what)
{
	const std::vector<double> values = floatingElements(ctx, tensor, what);
	const bool isComplex = tensor.shape().back() == 2;
	std::vector<Complex> elements(values.size() / (isComplex ? 2 : 1));
	for (size_t i = 0; i < elements.size(); i++)
		elements[i] = isComplex ? Complex(values[2 * i], values[2 * i + 1]) : values[i];
	return elements;
}

/* Whether a tensor of the signal family ends in a dimension of 1 or 2 (real or complex). */
bool endsInComponents(const Tensor &tensor)
{
	return tensor.rank() >= 2 && (tensor.shape().back() == 1 || tensor.shape().back() == 2);
}

bool booleanAttribute(const OpContext &ctx, const char *name, int64_t fallback)
{
	const int64_t value = ctx.intAttribute(name, fallback);
	ctx.require(value == 0 || value == 1, ctx.node().opType + ": attribute '" + name +
						      "' must be 0 or 1, not " + std::to_string(value));
	return value;
}

/*
 * DFT: input [dims..., 1 or 2], transformed along `axis` (a dimension of the
 * signal, not the last one), into [dims..., 2] whose axis holds dft_length
 * bins, or dft_length / 2 + 1 when onesided (only for a real input, whose
 * spectrum is conjugate symmetric). dft_length zero-pads or cuts the signal.
 */
void dft(OpContext &ctx)
{
	const Tensor &input = ctx.input(0);
	ctx.require(endsInComponents(input), "DFT: input " + input.describe() +
						     " must end in a dimension of 1 or 2");
	const int64_t rank = int64_t(input.rank());
	int64_t axis = ctx.intAttribute("axis", 1);
	ctx.require(axis >= -rank && axis <= rank - 2 && axis != -1,
		    "DFT: attribute 'axis' (" + std::to_string(axis) + ") must be a dimension of " +
			    input.describe() + " before the last");
	if (axis < 0)
		axis += rank;
	const bool inverse = booleanAttribute(ctx, "inverse", 0);
	const bool onesided = booleanAttribute(ctx, "onesided", 0);
	const bool complexInput = input.shape().back() == 2;
	ctx.require(!(onesided && complexInput), "DFT: onesided needs a real input, not " +
							 input.describe());

	const int64_t length = input.shape()[axis];
	int64_t n = length;
	if (ctx.hasInput(1))
		n = scalarInteger(ctx, 1, "dft_length");
	ctx.require(n >= 1, "DFT: the transform length (" + std::to_string(n) + ") must be positive");
	const int64_t bins = onesided ? n / 2 + 1 : n;

	int64_t outer = 1, inner = 1;
	for (int64_t d = 0; d < axis; d++)
		outer *= input.shape()[d];
	for (int64_t d = axis + 1; d < rank - 1; d++)
		inner *= input.shape()[d];
	std::vector<int64_t> shape = input.shape();
	shape[axis] = bins;
	shape.back() = 2;
	checkedElements(ctx, shape, "output");

	const std::vector<Complex> x = complexElements(ctx, input, "input");
	std::vector<double> y(outer * bins * inner * 2);
	const Dft transform(n, inverse);
	std::vector<Complex> line(length), spectrum(bins);
	for (int64_t o = 0; o < outer; o++) {
		for (int64_t i = 0; i < inner; i++) {
			for (int64_t t = 0; t < length; t++)
				line[t] = x[(o * length + t) * inner + i];
			transform.transform(line.data(), length, bins, spectrum.data());
			for (int64_t k = 0; k < bins; k++) {
				double *out = &y[((o * bins + k) * inner + i) * 2];
				out[0] = spectrum[k].real();
				out[1] = spectrum[k].imag();
			}
		}
	}
	ctx.setOutput(0, tensorFromDoubles(ctx, y, input.type(), shape));
}

/*
 * STFT: signal [batch, length, 1 or 2] cut into frames of frame_length
 * samples every frame_step samples (the frames that fit), each multiplied
 * by the window if there is one and transformed, into
 * [batch, frames, bins, 2]. frame_length defaults to the window's length.
 */
void stft(OpContext &ctx)
{
	const Tensor &signal = ctx.input(0);
	ctx.require(signal.rank() == 3 && endsInComponents(signal),
		    "STFT: signal " + signal.describe() + " must be [batch, length, 1 or 2]");
	const bool onesided = booleanAttribute(ctx, "onesided", 1);
	ctx.require(!(onesided && signal.shape().back() == 2),
		    "STFT: onesided needs a real signal, not " + signal.describe());
	const int64_t step = scalarInteger(ctx, 1, "frame_step");
	ctx.require(step >= 1, "STFT: frame_step (" + std::to_string(step) + ") must be positive");

	std::vector<double> window;
	int64_t frameLength = 0;
	if (ctx.hasInput(2)) {
		const Tensor &windowInput = ctx.input(2);
		ctx.require(windowInput.rank() == 1,
			    "STFT: window " + windowInput.describe() + " must be 1-D");
		window = floatingElements(ctx, windowInput, "window");
		frameLength = int64_t(window.size());
	}
	if (ctx.hasInput(3)) {
		const int64_t given = scalarInteger(ctx, 3, "frame_length");
		ctx.require(window.empty() || given == frameLength,
			    "STFT: frame_length (" + std::to_string(given) +
				    ") differs from the length of the window (" +
				    std::to_string(frameLength) + ")");
		frameLength = given;
	}
	const int64_t batch = signal.shape()[0];
	const int64_t length = signal.shape()[1];
	ctx.require(frameLength >= 1 && frameLength <= length,
		    "STFT: the frame length (" + std::to_string(frameLength) +
			    ", from frame_length or the window) must be in [1, " +
			    std::to_string(length) + "], the signal's length");
	const int64_t frames = (length - frameLength) / step + 1;
	const int64_t bins = onesided ? frameLength / 2 + 1 : frameLength;
	checkedElements(ctx, { batch, frames, bins, 2 }, "output");

	const std::vector<Complex> x = complexElements(ctx, signal, "signal");
	std::vector<double> y(batch * frames * bins * 2);
	const Dft transform(frameLength, false);
	std::vector<Complex> frame(frameLength), spectrum(bins);
	for (int64_t b = 0; b < batch; b++) {
		for (int64_t f = 0; f < frames; f++) {
			const Complex *start = &x[b * length + f * step];
			for (int64_t t = 0; t < frameLength; t++)
				frame[t] = window.empty() ? start[t] : start[t] * window[t];
			transform.transform(frame.data(), frameLength, bins, spectrum.data());
			for (int64_t k = 0; k < bins; k++) {
				double *out = &y[((b * frames + f) * bins + k) * 2];
				out[0] = spectrum[k].real();
				out[1] = spectrum[k].imag();
			}
		}
	}
	ctx.setOutput(0, tensorFromDoubles(ctx, y, signal.type(), { batch, frames, bins, 2 }));
}

} /* namespace */

void registerSignalOps(OpRegistry &registry)
{
	registry.add("DFT", dft);
	registry.add("STFT", stft);
	registerWindowOps(registry);
}

} /* namespace vdla::onnx */
