/* SPDX-License-Identifier: MIT */
/*
 * No C++ exception leaves the C API. Every vx* function is a
 * function-try-block that ends in one of the VX_API_CATCH macros: an
 * exception thrown inside (std::bad_alloc from a container that cannot
 * grow, or any exception from C++ application code the runtime calls) is
 * reported on stderr and becomes an error status, a null handle or
 * VX_TYPE_INVALID, instead of std::terminate() in the application. The
 * forced unwinding of a cancelled thread passes through, as it must.
 *
 * The handlers run after the body's locals, including the API lock, are
 * destroyed.
 */
#pragma once

#include <VX/vx.h>

#include <cxxabi.h>

namespace vdla::vx {

/* Called from a catch block: reports the exception being handled, thrown
 * inside @function, and returns its status (VX_ERROR_NO_MEMORY for
 * std::bad_alloc, VX_FAILURE otherwise). */
vx_status statusOfException(const char *function);

} /* namespace vdla::vx */

/* The handlers, ending with @handling for any exception but forced unwinding. */
#define VX_API_HANDLERS(handling)                                      \
	catch (abi::__forced_unwind &)                                 \
	{                                                              \
		throw;                                                 \
	}                                                              \
	catch (...)                                                    \
	{                                                              \
		handling;                                              \
	}

#define VX_API_CATCH_STATUS VX_API_HANDLERS(return vdla::vx::statusOfException(__func__))
#define VX_API_CATCH(failure)                                          \
	VX_API_HANDLERS(vdla::vx::statusOfException(__func__); return failure)
#define VX_API_CATCH_VOID VX_API_HANDLERS(vdla::vx::statusOfException(__func__))
