/* SPDX-License-Identifier: MIT */
/*
 * Reconciliation of the Image, ImagePyramid and Array keys, and of a
 * buffer that is an Image and a Tensor at once (NHWC or NCHW): their
 * rules, and the layouts computed from them (docs/sharing.md).
 */
#pragma once

#include "reconcile_rules.h"

namespace vdla::detail {

class ImageReconciler : public Rules
{
public:
	ImageReconciler(const std::vector<const AttrList *> &lists, AttrList &out, bool dlaParty)
		: Rules(lists), out_(out), dlaParty_(dlaParty)
	{
	}

	/* An Image, or with @pyramid an ImagePyramid: planes level by level. */
	void reconcileImage(bool pyramid);
	void reconcileArray();
	/* The tensor keys are reconciled already: one layout serving both. */
	void reconcileImageTensor();

private:
	/* The planes' keys, equal, and their alignments, largest per plane. */
	bool reconcilePlaneKeys();
	/* Per plane (or dimension) the largest of @get's values; false on a count mismatch. */
	bool largestPerEntry(AttrKey key, size_t count,
		std::function<std::optional<std::vector<uint64_t>>(const AttrList &)> get,
		const std::string &what, std::vector<uint64_t> &out);
	/* A conflict naming each list's value of @keys. */
	void conflict(AttrKey key, const std::string &rule, const std::vector<AttrKey> &keys);
	void setAlignment(uint64_t wanted);

	AttrList &out_;
	bool dlaParty_;
};

} /* namespace vdla::detail */
