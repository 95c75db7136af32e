/* SPDX-License-Identifier: MIT */
/*
 * What the ONNX backend cases may skip, and why (docs/onnx.md, "Scope").
 * Every operator of a case is either implemented on the CPU or listed here
 * with its reason; a case of an unlisted, unimplemented operator fails.
 */
#pragma once

#include <map>
#include <string>

namespace vdla::onnx::test {

/* Operators libvdla will not implement: training, control flow, strings, randomness. */
const std::map<std::string, std::string> &outOfScopeOperators();

/* Cases that fail for a known reason; each must keep failing (or leave the list). */
const std::map<std::string, std::string> &knownFailures();

/*
 * The reason a model cannot load that puts the case out of scope (a string,
 * bfloat16, sequence or optional value), or "" if the failure is a bug.
 */
std::string outOfScopeLoadFailure(const std::string &reason);

} /* namespace vdla::onnx::test */
