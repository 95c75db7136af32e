/* SPDX-License-Identifier: MIT */
/*
 * Einsum: the sum over every label not in the output of the product of the
 * inputs, each indexed by its term's labels. A label repeated in a term reads
 * its diagonal; the ellipsis stands for the leading axes, broadcast across
 * inputs.
 */

#include "nn_ops.h"

#include <cctype>
#include <type_traits>

namespace vdla::onnx {

namespace {

/* Labels are letters; the ellipsis's axes get labels from 52 on. */
constexpr int kEllipsisLabel = 52;

struct Term {
	/* The labels of the term's axes, the ellipsis spelt out. */
	std::vector<int> labels;
	bool hasEllipsis = false;
	/* Letters before and after the ellipsis. */
	std::vector<int> head;
	std::vector<int> tail;
};

int letterLabel(char c)
{
	if (c >= 'a' && c <= 'z')
		return c - 'a';
	if (c >= 'A' && c <= 'Z')
		return 26 + c - 'A';
	throw OpError(EINVAL, std::string("equation: '") + c + "' is not a letter");
}

Term parseTerm(const OpContext &ctx, const std::string &text)
{
	Term term;
	for (size_t i = 0; i < text.size(); i++) {
		if (text[i] == ' ')
			continue;
		if (text[i] == '.') {
			ctx.require(!term.hasEllipsis && text.compare(i, 3, "...") == 0,
				    "equation: a term has a stray '.' or two ellipses");
			term.hasEllipsis = true;
			i += 2;
			continue;
		}
		(term.hasEllipsis ? term.tail : term.head).push_back(letterLabel(text[i]));
	}
	return term;
}

/* Spells the ellipsis of a term out as `axes` labels (the last axes last). */
void expand(Term &term, int64_t axes, int64_t ellipsisAxes)
{
	term.labels = term.head;
	for (int64_t i = 0; i < axes; i++)
		term.labels.push_back(kEllipsisLabel + int(ellipsisAxes - axes + i));
	term.labels.insert(term.labels.end(), term.tail.begin(), term.tail.end());
}

template<typename T>
void contract(const std::vector<const Tensor *> &inputs, const std::vector<Term> &terms,
	      const Term &output, const std::vector<int64_t> &size, Tensor &y)
{
	using Accumulator = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;
	const size_t labelCount = size.size();

	/* The output's labels first, then the summed ones. */
	std::vector<int> order = output.labels;
	std::vector<bool> inOutput(labelCount, false);
	for (int l : output.labels)
		inOutput[l] = true;
	for (size_t l = 0; l < labelCount; l++)
		if (!inOutput[l] && size[l] >= 0)
			order.push_back(int(l));
	std::vector<int64_t> dims;
	for (int l : order)
		dims.push_back(size[l]);
	const size_t outputAxes = output.labels.size();
	const std::vector<int64_t> outerDims(dims.begin(), dims.begin() + outputAxes);
	const std::vector<int64_t> innerDims(dims.begin() + outputAxes, dims.end());

	/* Each input's stride per label of `order`; 0 where it broadcasts or lacks it. */
	std::vector<std::vector<int64_t>> strides(inputs.size(), std::vector<int64_t>(order.size()));
	for (size_t t = 0; t < inputs.size(); t++) {
		const std::vector<int64_t> tensorStrides = stridesOf(inputs[t]->shape());
		for (size_t a = 0; a < terms[t].labels.size(); a++) {
			if (inputs[t]->shape()[a] == 1 && size[terms[t].labels[a]] != 1)
				continue;
			for (size_t i = 0; i < order.size(); i++)
				if (order[i] == terms[t].labels[a])
					strides[t][i] += tensorStrides[a];
		}
	}

	T *out = y.data<T>();
	if (!y.elements())
		return;
	const bool emptySum = shapeProduct(innerDims, 0, innerDims.size()) == 0;
	std::vector<int64_t> outer(outputAxes, 0);
	int64_t at = 0;
	do {
		Accumulator sum = 0;
		std::vector<int64_t> inner(innerDims.size(), 0);
		do {
			if (emptySum)
				break;
			Accumulator product = 1;
			for (size_t t = 0; t < inputs.size(); t++) {
				int64_t offset = 0;
				for (size_t i = 0; i < outputAxes; i++)
					offset += outer[i] * strides[t][i];
				for (size_t i = 0; i < inner.size(); i++)
					offset += inner[i] * strides[t][outputAxes + i];
				product *= Accumulator(inputs[t]->data<T>()[offset]);
			}
			sum += product;
		} while (nextPosition(inner, innerDims));
		out[at++] = T(sum);
	} while (nextPosition(outer, outerDims));
}

void einsum(OpContext &ctx)
{
	std::string equation = ctx.stringAttribute("equation", "");
	ctx.require(!equation.empty(), "attribute 'equation' is required");
	ctx.require(ctx.inputCount() >= 1, "Einsum needs an input");
	std::vector<const Tensor *> inputs;
	for (size_t i = 0; i < ctx.inputCount(); i++) {
		inputs.push_back(&ctx.input(i));
		ctx.require(inputs[i]->type() == inputs[0]->type(), "inputs are not of one type");
	}

	const size_t arrow = equation.find("->");
	const std::string left = equation.substr(0, arrow);
	std::vector<Term> terms;
	for (size_t start = 0;;) {
		size_t comma = left.find(',', start);
		terms.push_back(parseTerm(ctx, left.substr(start, comma - start)));
		if (comma == std::string::npos)
			break;
		start = comma + 1;
	}
	ctx.require(terms.size() == inputs.size(), "equation has " + std::to_string(terms.size()) +
							   " terms for " +
							   std::to_string(inputs.size()) + " inputs");

	/* Label sizes; -1 for a label no term uses. The ellipsis broadcasts. */
	int64_t ellipsisAxes = 0;
	for (size_t t = 0; t < terms.size(); t++) {
		const int64_t letters = terms[t].head.size() + terms[t].tail.size();
		const int64_t rank = inputs[t]->rank();
		ctx.require(terms[t].hasEllipsis ? rank >= letters : rank == letters,
			    "equation term " + std::to_string(t) + " does not fit input " +
				    inputs[t]->describe());
		ellipsisAxes = std::max(ellipsisAxes, rank - letters);
	}
	std::vector<int64_t> size(kEllipsisLabel + ellipsisAxes, -1);
	std::vector<int> uses(size.size(), 0);
	for (size_t t = 0; t < terms.size(); t++) {
		const int64_t rank = inputs[t]->rank();
		expand(terms[t], rank - int64_t(terms[t].head.size() + terms[t].tail.size()),
		       ellipsisAxes);
		for (size_t a = 0; a < terms[t].labels.size(); a++) {
			const int l = terms[t].labels[a];
			const int64_t d = inputs[t]->shape()[a];
			const bool broadcasts = l >= kEllipsisLabel && (d == 1 || size[l] == 1);
			ctx.require(size[l] < 0 || size[l] == d || broadcasts,
				    "equation: a label has sizes " + std::to_string(size[l]) +
					    " and " + std::to_string(d));
			if (size[l] < 0 || size[l] == 1)
				size[l] = d;
			uses[l]++;
		}
	}

	Term output;
	if (arrow != std::string::npos) {
		output = parseTerm(ctx, equation.substr(arrow + 2));
		expand(output, output.hasEllipsis ? ellipsisAxes : 0, ellipsisAxes);
	} else {
		/*
		 * Implicit: the ellipsis, then the letters used once in the order
		 * of their character codes, as numpy: uppercase (labels 26 to 51)
		 * before lowercase (labels 0 to 25).
		 */
		std::vector<int> once;
		for (int l = 26; l < kEllipsisLabel; l++)
			if (uses[l] == 1)
				once.push_back(l);
		for (int l = 0; l < 26; l++)
			if (uses[l] == 1)
				once.push_back(l);
		output.head.clear();
		output.tail = once;
		expand(output, ellipsisAxes, ellipsisAxes);
	}
	std::vector<int64_t> shape;
	std::vector<bool> seen(size.size(), false);
	for (int l : output.labels) {
		ctx.require(size[l] >= 0 && !seen[l], "equation: an output label is not in an input "
						      "or is repeated");
		seen[l] = true;
		shape.push_back(size[l]);
	}

	/*
	 * The contraction visits every combination of the labels' values: their
	 * product (0 if any is 0) is held to a budget before the loop starts.
	 */
	constexpr int64_t kMaxIterations = int64_t(1) << 32;
	int64_t iterations = 1;
	bool budgetExceeded = false;
	for (int64_t d : size) {
		if (d == 0) {
			iterations = 0;
			budgetExceeded = false;
			break;
		}
		if (d > 0 && !budgetExceeded &&
		    (__builtin_mul_overflow(iterations, d, &iterations) || iterations > kMaxIterations))
			budgetExceeded = true;
	}
	if (budgetExceeded)
		throw OpError(EAGAIN, "equation '" + equation + "' needs more than the 2^32 "
				      "iterations libvdla takes for one Einsum (the product of "
				      "the sizes of its labels)");

	Tensor y(inputs[0]->type(), shape);
	dispatchNumeric(ctx, y.type(), [&](auto zero) {
		contract<decltype(zero)>(inputs, terms, output, size, y);
	});
	ctx.setOutput(0, std::move(y));
}

} /* namespace */

void registerEinsumOps(OpRegistry &registry)
{
	registry.add("Einsum", einsum);
}

} /* namespace vdla::onnx */
