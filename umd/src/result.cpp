/* SPDX-License-Identifier: MIT */
#include <vdla/result.h>

#include <cstring>

namespace vdla {

std::string Error::message() const
{
	return reason_ + ": " + std::strerror(code_);
}

} /* namespace vdla */
