/* SPDX-License-Identifier: MIT */
/*
 * The recurrent layers RNN, GRU and LSTM: forward, reverse or bidirectional,
 * sequence_lens, both layouts, the activations of the specification. Each
 * batch item runs its own sequence (of its own length) step by step, in
 * double.
 */

#include "nn_ops.h"

#include <cmath>
#include <functional>

namespace vdla::onnx {

namespace {

enum class Cell { Rnn, Gru, Lstm };

using Activation = std::function<double(double)>;

/* Gates per cell: RNN one, GRU z r h, LSTM i o f c. */
int64_t gatesOf(Cell cell)
{
	return cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4;
}

/*
 * The activations of the node, per direction. activation_alpha and
 * activation_beta are consumed in order by the activations that take them.
 */
std::vector<Activation> activations(const OpContext &ctx, Cell cell, int64_t directions)
{
	std::vector<std::string> names;
	if (const Attribute *attr = ctx.node().attribute("activations"))
		names = attr->strings;
	const std::vector<std::string> defaults =
		cell == Cell::Rnn   ? std::vector<std::string>{ "Tanh" }
		: cell == Cell::Gru ? std::vector<std::string>{ "Sigmoid", "Tanh" }
				    : std::vector<std::string>{ "Sigmoid", "Tanh", "Tanh" };
	if (names.empty())
		for (int64_t d = 0; d < directions; d++)
			names.insert(names.end(), defaults.begin(), defaults.end());
	ctx.require(names.size() == defaults.size() * directions,
		    "attribute 'activations' has " + std::to_string(names.size()) + " names for " +
			    std::to_string(defaults.size() * directions));

	std::vector<float> alphas, betas;
	if (ctx.hasAttribute("activation_alpha"))
		alphas = ctx.floatsAttribute("activation_alpha");
	if (ctx.hasAttribute("activation_beta"))
		betas = ctx.floatsAttribute("activation_beta");
	size_t nextAlpha = 0, nextBeta = 0;
	auto alpha = [&](double fallback) {
		return nextAlpha < alphas.size() ? double(alphas[nextAlpha++]) : fallback;
	};
	auto beta = [&](double fallback) {
		return nextBeta < betas.size() ? double(betas[nextBeta++]) : fallback;
	};

	std::vector<Activation> functions;
	for (const std::string &name : names) {
		if (name == "Tanh") {
			functions.push_back([](double x) { return std::tanh(x); });
		} else if (name == "Sigmoid") {
			functions.push_back([](double x) { return 1 / (1 + std::exp(-x)); });
		} else if (name == "Relu") {
			functions.push_back([](double x) { return x > 0 ? x : 0; });
		} else if (name == "Affine") {
			double a = alpha(1), b = beta(0);
			functions.push_back([a, b](double x) { return a * x + b; });
		} else if (name == "LeakyRelu") {
			double a = alpha(0.01);
			functions.push_back([a](double x) { return x >= 0 ? x : a * x; });
		} else if (name == "ThresholdedRelu") {
			double a = alpha(1);
			functions.push_back([a](double x) { return x > a ? x : 0; });
		} else if (name == "ScaledTanh") {
			double a = alpha(1), b = beta(1);
			functions.push_back([a, b](double x) { return a * std::tanh(b * x); });
		} else if (name == "HardSigmoid") {
			double a = alpha(0.2), b = beta(0.5);
			functions.push_back([a, b](double x) {
				return std::max(0.0, std::min(1.0, a * x + b));
			});
		} else if (name == "Elu") {
			double a = alpha(1);
			functions.push_back([a](double x) { return x >= 0 ? x : a * (std::exp(x) - 1); });
		} else if (name == "Softsign") {
			functions.push_back([](double x) { return x / (1 + std::fabs(x)); });
		} else if (name == "Softplus") {
			functions.push_back([](double x) { return std::log1p(std::exp(x)); });
		} else {
			throw OpError(EINVAL, "activation '" + name + "' is not one of the specification");
		}
	}
	return functions;
}

/* A tensor of the node as doubles, checked to have the given shape. */
std::vector<double> doubles(const OpContext &ctx, size_t input, const char *name,
			    const std::vector<int64_t> &shape, DataType type)
{
	const Tensor &t = ctx.input(input);
	ctx.require(t.type() == type && t.shape() == shape,
		    std::string("input ") + name + " " + t.describe() + " is not " +
			    dataTypeName(type) + shapeString(shape));
	std::vector<double> values(t.elements());
	for (size_t i = 0; i < values.size(); i++)
		values[i] = elementAsDouble(t, i);
	return values;
}

struct Recurrence {
	Cell cell;
	int64_t directions, seq, batch, inputSize, hidden, gates;
	bool batchFirst;
	double clip;
	bool linearBeforeReset;
	bool inputForget;
	std::vector<double> x, w, r, bias, initialH, initialC, peepholes;
	std::vector<int64_t> lengths;
	std::vector<Activation> functions;
};

/* The index of [direction][batch][j] in Y_h, Y_c, initial_h and initial_c. */
int64_t stateIndex(const Recurrence &n, int64_t d, int64_t b, int64_t j)
{
	return (n.batchFirst ? b * n.directions + d : d * n.batch + b) * n.hidden + j;
}

/* out[g] = bias[g] + sum over i of matrix[g][i] * v[i], for `rows` rows. */
void affine(const double *matrix, const double *bias, const double *v, int64_t rows,
	    int64_t columns, double *out)
{
	for (int64_t g = 0; g < rows; g++) {
		double sum = bias[g];
		for (int64_t i = 0; i < columns; i++)
			sum += matrix[g * columns + i] * v[i];
		out[g] = sum;
	}
}

/* The index of Y[t][direction][batch][j] in either layout. */
int64_t outputIndex(const Recurrence &n, int64_t t, int64_t d, int64_t b, int64_t j)
{
	return (n.batchFirst ? (b * n.seq + t) * n.directions + d
			     : (t * n.directions + d) * n.batch + b) * n.hidden + j;
}

/*
 * Direction d of one batch item: its whole sequence (backwards for the
 * reverse direction), into Y, Y_h and Y_c.
 */
void runSequence(const Recurrence &n, int64_t d, bool backwards, int64_t b, std::vector<double> &y,
		 std::vector<double> &yh, std::vector<double> &yc)
{
	const int64_t H = n.hidden, G = n.gates;
	const double *w = &n.w[d * G * H * n.inputSize];
	const double *r = &n.r[d * G * H * H];
	const double *wb = &n.bias[d * 2 * G * H];
	const double *rb = wb + G * H;
	const double *p = n.peepholes.empty() ? nullptr : &n.peepholes[d * 3 * H];
	const size_t perDirection = n.functions.size() / n.directions;
	const Activation *f = &n.functions[d * perDirection];
	auto clip = [&](double v) { return n.clip > 0 ? std::max(-n.clip, std::min(n.clip, v)) : v; };

	std::vector<double> h(H, 0.0), c(H, 0.0), xw(G * H), hr(G * H), reset(H), resetH(H);
	for (int64_t j = 0; j < H; j++) {
		if (!n.initialH.empty())
			h[j] = n.initialH[stateIndex(n, d, b, j)];
		if (!n.initialC.empty())
			c[j] = n.initialC[stateIndex(n, d, b, j)];
	}

	const int64_t length = n.lengths[b];
	for (int64_t s = 0; s < length; s++) {
		const int64_t t = backwards ? length - 1 - s : s;
		const double *xt = &n.x[(n.batchFirst ? b * n.seq + t : t * n.batch + b) * n.inputSize];
		affine(w, wb, xt, G * H, n.inputSize, xw.data());
		affine(r, rb, h.data(), G * H, H, hr.data());
		if (n.cell == Cell::Rnn) {
			for (int64_t j = 0; j < H; j++)
				h[j] = f[0](clip(xw[j] + hr[j]));
		} else if (n.cell == Cell::Gru) {
			/* Gates z, r, h. */
			for (int64_t j = 0; j < H; j++) {
				reset[j] = f[0](clip(xw[H + j] + hr[H + j]));
				resetH[j] = reset[j] * h[j];
			}
			/* Without linear_before_reset, R_h multiplies the reset state. */
			if (!n.linearBeforeReset)
				affine(r + 2 * H * H, rb + 2 * H, resetH.data(), H, H, hr.data() + 2 * H);
			for (int64_t j = 0; j < H; j++) {
				const double z = f[0](clip(xw[j] + hr[j]));
				const double candidate =
					n.linearBeforeReset ? xw[2 * H + j] + reset[j] * hr[2 * H + j]
							    : xw[2 * H + j] + hr[2 * H + j];
				h[j] = (1 - z) * f[1](clip(candidate)) + z * h[j];
			}
		} else {
			/* Gates i, o, f, c; peepholes i, o, f. */
			for (int64_t j = 0; j < H; j++) {
				const double forget =
					f[0](clip(xw[2 * H + j] + hr[2 * H + j] + (p ? p[2 * H + j] * c[j] : 0)));
				const double input =
					n.inputForget ? 1 - forget
						      : f[0](clip(xw[j] + hr[j] + (p ? p[j] * c[j] : 0)));
				const double candidate = f[1](clip(xw[3 * H + j] + hr[3 * H + j]));
				c[j] = forget * c[j] + input * candidate;
				const double output =
					f[0](clip(xw[H + j] + hr[H + j] + (p ? p[H + j] * c[j] : 0)));
				h[j] = output * f[2](c[j]);
			}
		}
		for (int64_t j = 0; j < H; j++)
			y[outputIndex(n, t, d, b, j)] = h[j];
	}
	for (int64_t j = 0; j < H; j++) {
		yh[stateIndex(n, d, b, j)] = h[j];
		yc[stateIndex(n, d, b, j)] = c[j];
	}
}

Tensor fromDoubles(DataType type, const std::vector<int64_t> &shape, const std::vector<double> &v)
{
	Tensor t(type, shape);
	for (size_t i = 0; i < v.size(); i++)
		storeFromDouble(t, i, v[i]);
	return t;
}

void recurrent(OpContext &ctx, Cell cell)
{
	const Tensor &x = ctx.input(0);
	const DataType type = x.type();
	/* Only checks the type: the arithmetic is in double. */
	dispatchFloat(ctx, type, [](auto) {});
	ctx.require(x.rank() == 3, "input X " + x.describe() + " is not [seq, batch, input]");

	Recurrence n;
	n.cell = cell;
	n.gates = gatesOf(cell);
	n.batchFirst = ctx.intAttribute("layout", 0) != 0;
	const std::string direction = ctx.stringAttribute("direction", "forward");
	ctx.require(direction == "forward" || direction == "reverse" ||
			    direction == "bidirectional",
		    "attribute 'direction' '" + direction + "' is not forward, reverse or bidirectional");
	n.directions = direction == "bidirectional" ? 2 : 1;
	n.seq = x.shape()[n.batchFirst ? 1 : 0];
	n.batch = x.shape()[n.batchFirst ? 0 : 1];
	n.inputSize = x.shape()[2];
	const Tensor &recurrence = ctx.input(2);
	ctx.require(recurrence.rank() == 3, "input R " + recurrence.describe() + " is not 3-D");
	n.hidden = ctx.intAttribute("hidden_size", recurrence.shape()[2]);
	ctx.require(n.hidden >= 1, "attribute 'hidden_size' must be positive");
	n.clip = ctx.floatAttribute("clip", 0);
	ctx.require(!ctx.hasAttribute("clip") || n.clip > 0, "attribute 'clip' must be positive");
	n.linearBeforeReset = ctx.intAttribute("linear_before_reset", 0) != 0;
	n.inputForget = ctx.intAttribute("input_forget", 0) != 0;
	n.functions = activations(ctx, cell, n.directions);

	const int64_t D = n.directions, G = n.gates, H = n.hidden;
	n.x = doubles(ctx, 0, "X", x.shape(), type);
	n.w = doubles(ctx, 1, "W", { D, G * H, n.inputSize }, type);
	n.r = doubles(ctx, 2, "R", { D, G * H, H }, type);
	n.bias = ctx.hasInput(3) ? doubles(ctx, 3, "B", { D, 2 * G * H }, type)
				 : std::vector<double>(D * 2 * G * H, 0.0);
	n.lengths.assign(n.batch, n.seq);
	if (ctx.hasInput(4)) {
		const Tensor &lengths = ctx.input(4);
		ctx.require(lengths.shape() == std::vector<int64_t>{ n.batch },
			    "input sequence_lens " + lengths.describe() + " is not one per batch item");
		n.lengths = toInt64s(ctx, lengths);
		for (int64_t length : n.lengths)
			ctx.require(length >= 0 && length <= n.seq,
				    "input sequence_lens has a length outside [0, " +
					    std::to_string(n.seq) + "]");
	}
	const std::vector<int64_t> stateShape = n.batchFirst ? std::vector<int64_t>{ n.batch, D, H }
							     : std::vector<int64_t>{ D, n.batch, H };
	if (ctx.hasInput(5))
		n.initialH = doubles(ctx, 5, "initial_h", stateShape, type);
	if (cell == Cell::Lstm && ctx.hasInput(6))
		n.initialC = doubles(ctx, 6, "initial_c", stateShape, type);
	if (cell == Cell::Lstm && ctx.hasInput(7))
		n.peepholes = doubles(ctx, 7, "P", { D, 3 * H }, type);

	const std::vector<int64_t> outputShape =
		n.batchFirst ? std::vector<int64_t>{ n.batch, n.seq, D, H }
			     : std::vector<int64_t>{ n.seq, D, n.batch, H };
	/* Y is zero past a batch item's sequence length. */
	std::vector<double> y(shapeProduct(outputShape, 0, 4), 0.0);
	std::vector<double> yh(D * n.batch * H), yc(D * n.batch * H);
	for (int64_t d = 0; d < D; d++) {
		const bool backwards = direction == "reverse" || d == 1;
		for (int64_t b = 0; b < n.batch; b++)
			runSequence(n, d, backwards, b, y, yh, yc);
	}
	ctx.setOutput(0, fromDoubles(type, outputShape, y));
	ctx.setOutput(1, fromDoubles(type, stateShape, yh));
	if (cell == Cell::Lstm)
		ctx.setOutput(2, fromDoubles(type, stateShape, yc));
}

} /* namespace */

void registerRnnOps(OpRegistry &registry)
{
	registry.add("RNN", [](OpContext &ctx) { recurrent(ctx, Cell::Rnn); });
	registry.add("GRU", [](OpContext &ctx) { recurrent(ctx, Cell::Gru); });
	registry.add("LSTM", [](OpContext &ctx) { recurrent(ctx, Cell::Lstm); });
}

} /* namespace vdla::onnx */
