/* SPDX-License-Identifier: MIT */
/*
 * User structs (vxRegisterUserStruct, vxRegisterUserStructWithName,
 * vxGetUserStructNameByEnum, vxGetUserStructEnumByName): types numbered
 * from VX_TYPE_USER_STRUCT_START in each context, names both ways, and
 * scalars holding such a structure at its registered size.
 */
#include "vx_test.h"

#include <cstring>

namespace {

using UserStruct = VxTest;

struct Box {
	vx_int32 x, y, width, height;
};

TEST_F(UserStruct, TypesAreNumberedFromUserStructStart)
{
	EXPECT_EQ(VX_TYPE_USER_STRUCT_START, vxRegisterUserStruct(context, sizeof(Box)));
	EXPECT_EQ(VX_TYPE_USER_STRUCT_START + 1, vxRegisterUserStruct(context, 3));
	EXPECT_EQ(VX_TYPE_INVALID, vxRegisterUserStruct(context, 0)) << "a size of 0";
	EXPECT_EQ(VX_TYPE_INVALID, vxRegisterUserStruct(nullptr, 4));

	/* Each context numbers its own. */
	vx_context other = vxCreateContext();
	EXPECT_EQ(VX_TYPE_USER_STRUCT_START, vxRegisterUserStruct(other, 8));
	vxReleaseContext(&other);
}

TEST_F(UserStruct, NamesLeadToTypesAndBack)
{
	const vx_enum box = vxRegisterUserStructWithName(context, sizeof(Box), "vdla.box");
	const vx_enum unnamed = vxRegisterUserStruct(context, 2);
	ASSERT_NE(VX_TYPE_INVALID, box);
	EXPECT_EQ(VX_TYPE_INVALID, vxRegisterUserStructWithName(context, 4, "vdla.box"))
		<< "a name registered twice";

	vx_enum found = 0;
	ASSERT_EQ(VX_SUCCESS, vxGetUserStructEnumByName(context, "vdla.box", &found));
	EXPECT_EQ(box, found);
	char name[16];
	ASSERT_EQ(VX_SUCCESS, vxGetUserStructNameByEnum(context, box, name, sizeof(name)));
	EXPECT_STREQ("vdla.box", name);
	EXPECT_EQ(VX_ERROR_NO_MEMORY, vxGetUserStructNameByEnum(context, box, name, 8))
		<< "no room for the terminating NUL";

	EXPECT_EQ(VX_FAILURE, vxGetUserStructEnumByName(context, "vdla.circle", &found));
	EXPECT_EQ(VX_FAILURE, vxGetUserStructEnumByName(context, "", &found));
	EXPECT_EQ(VX_FAILURE, vxGetUserStructNameByEnum(context, unnamed, name, sizeof(name)));
	EXPECT_EQ(VX_FAILURE,
		vxGetUserStructNameByEnum(
			context, VX_TYPE_USER_STRUCT_START + 9, name, sizeof(name)));
	/* Not a user struct enumeration at all: an invalid parameter, as the
	 * specification says (the CTS expects VX_FAILURE; docs/openvx.md). */
	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS,
		vxGetUserStructNameByEnum(context, VX_TYPE_INT32, name, sizeof(name)));
	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS,
		vxGetUserStructNameByEnum(context, VX_TYPE_VENDOR_STRUCT_START, name, sizeof(name)));
	EXPECT_EQ(VX_FAILURE, vxGetUserStructEnumByName(context, nullptr, &found));
	EXPECT_EQ(VX_ERROR_INVALID_PARAMETERS,
		vxGetUserStructEnumByName(context, "vdla.box", nullptr));
	EXPECT_EQ(
		VX_ERROR_INVALID_PARAMETERS, vxGetUserStructNameByEnum(context, box, nullptr, 16));
	EXPECT_EQ(
		VX_ERROR_INVALID_REFERENCE, vxGetUserStructEnumByName(nullptr, "vdla.box", &found));

	vx_context other = vxCreateContext();
	EXPECT_EQ(VX_FAILURE, vxGetUserStructEnumByName(other, "vdla.box", &found))
		<< "names are per context";
	vxReleaseContext(&other);
}

TEST_F(UserStruct, ScalarsHoldTheStructureAtItsRegisteredSize)
{
	const vx_enum type = vxRegisterUserStruct(context, sizeof(Box));
	const Box box = { 1, -2, 30, 40 };
	vx_scalar scalar = vxCreateScalar(context, type, &box);
	ASSERT_EQ(VX_SUCCESS, vxGetStatus(ref(scalar)));
	vx_enum queried = 0;
	ASSERT_EQ(VX_SUCCESS, vxQueryScalar(scalar, VX_SCALAR_TYPE, &queried, sizeof(queried)));
	EXPECT_EQ(type, queried);
	Box read = {};
	ASSERT_EQ(VX_SUCCESS,
		vxCopyScalarWithSize(
			scalar, sizeof(read), &read, VX_READ_ONLY, VX_MEMORY_TYPE_HOST));
	EXPECT_EQ(0, memcmp(&box, &read, sizeof(box)));

	EXPECT_EQ(VX_ERROR_INVALID_TYPE,
		vxGetStatus(ref(vxCreateScalarWithSize(context, type, &box, sizeof(box) - 4))))
		<< "another size than registered";
	vx_scalar sized = vxCreateScalarWithSize(context, type, &box, sizeof(box));
	EXPECT_EQ(VX_SUCCESS, vxGetStatus(ref(sized)));
	vxReleaseScalar(&sized);
	vxReleaseScalar(&scalar);
}

} /* namespace */
