/* SPDX-License-Identifier: MIT */
/*
 * vDLA register map: the hardware's published header, the contract between
 * the device (qemu-device/ implements it) and the software that programs
 * it (firmware/, kmd/, tests). It lives beside the UAPI rather than in the
 * device model's tree so that the driver depends on the contract, not on
 * the emulator.
 *
 * This file is the machine-readable half of docs/hw-spec.md; the two are kept
 * in step. It is plain C with no dependencies so that every part includes
 * the same definitions.
 */
#ifndef VDLA_REGS_H
#define VDLA_REGS_H

/* PCI identity. 0x1234 is QEMU's vendor id for experimental devices. */
#define VDLA_PCI_VENDOR_ID		0x1234
#define VDLA_PCI_DEVICE_ID		0xd1a0
#define VDLA_PCI_REVISION		0x02
#define VDLA_PCI_CLASS			0x1200	/* processing accelerator */

/* BARs */
#define VDLA_BAR_MMIO			0
#define VDLA_BAR_SRAM			2
#define VDLA_BAR_MSIX			4
#define VDLA_MMIO_SIZE			0x10000
#define VDLA_SRAM_DEFAULT_SIZE		(1u << 20)
#define VDLA_SRAM_MIN_SIZE		(64u << 10)
#define VDLA_SRAM_MAX_SIZE		(64u << 20)

/* MSI-X vectors */
#define VDLA_MSIX_VECTOR_GLOBAL		0
#define VDLA_MSIX_VECTORS		1

/* ---- Global block, 0x0000-0x0fff ---------------------------------------- */
#define VDLA_REG_ID			0x0000	/* RO: VDLA_ID_MAGIC */
#define VDLA_REG_VERSION		0x0004	/* RO: hardware version */
#define VDLA_REG_CAPS			0x0008	/* RO: VDLA_CAP_* */
#define VDLA_REG_IRQ_VECTORS		0x000c	/* RO: MSI-X vectors implemented */
#define VDLA_REG_SCRATCH(n)		(0x0010 + 4 * (n))	/* RW, n < 4 */
#define VDLA_NUM_SCRATCH		4
#define VDLA_REG_RESET			0x0020	/* WO: write VDLA_RESET_SOFT */
#define VDLA_REG_RESET_COUNT		0x0024	/* RO: soft resets since power-on */
#define VDLA_REG_INT_STATUS		0x0030	/* RW1C: pending VDLA_INT_* */
#define VDLA_REG_INT_ENABLE		0x0034	/* RW: VDLA_INT_* that signal MSI-X */
#define VDLA_REG_INT_SET		0x0038	/* WO: software-raised VDLA_INT_* */
#define VDLA_REG_TIME_LO		0x0040	/* RO: device time, ns, low word */
#define VDLA_REG_TIME_HI		0x0044	/* RO: high word latched by TIME_LO read */
#define VDLA_REG_SRAM_SIZE		0x0048	/* RO: bytes of SRAM (BAR2) */
#define VDLA_REG_ENGINES		0x004c	/* RO: bit e set if engine e exists */
#define VDLA_REG_IDLE			0x0050	/* RO: bit e set if engine e has nothing enabled */
#define VDLA_REG_COMPUTE		0x0054	/* RO: how the host computes (2.1) */

#define VDLA_ID_MAGIC			0x56444c41	/* "VDLA" */

#define VDLA_VERSION(major, minor, patch) \
	(((major) << 16) | ((minor) << 8) | (patch))
#define VDLA_VERSION_MAJOR(v)		(((v) >> 16) & 0xffff)
#define VDLA_VERSION_MINOR(v)		(((v) >> 8) & 0xff)
#define VDLA_VERSION_PATCH(v)		((v) & 0xff)
#define VDLA_HW_VERSION			VDLA_VERSION(3, 1, 0)

#define VDLA_CAP_TEST_IRQ		(1u << 0)
#define VDLA_CAP_SOFT_RESET		(1u << 1)
#define VDLA_CAP_TIMER			(1u << 2)
#define VDLA_CAP_MMU			(1u << 3)
#define VDLA_CAP_SRAM			(1u << 4)
#define VDLA_CAP_FUSION			(1u << 5)
#define VDLA_CAP_FAULT_INJECTION	(1u << 6)
#define VDLA_CAP_INT8			(1u << 8)
#define VDLA_CAP_INT16			(1u << 9)
#define VDLA_CAP_FP16			(1u << 10)
#define VDLA_CAP_FP32			(1u << 11)
#define VDLA_CAPS_V2 \
	(VDLA_CAP_TEST_IRQ | VDLA_CAP_SOFT_RESET | VDLA_CAP_TIMER | VDLA_CAP_MMU | \
	 VDLA_CAP_SRAM | VDLA_CAP_FUSION | VDLA_CAP_FAULT_INJECTION | VDLA_CAP_INT8 | \
	 VDLA_CAP_INT16 | VDLA_CAP_FP16 | VDLA_CAP_FP32)

#define VDLA_RESET_SOFT			0x1

/*
 * COMPUTE: which host code computes the device's convolutions, for bug
 * reports (docs/hw-spec.md, "Compute paths"). Results never depend on it:
 * integer results are exact on every path, float results within the spec's
 * tolerance.
 */
#define VDLA_COMPUTE_PATH(v)		((v) & 0xff)
#define VDLA_COMPUTE_FLOAT_ISA(v)	(((v) >> 8) & 0xff)
#define VDLA_COMPUTE(path, float_isa)	((path) | ((float_isa) << 8))
/* PATH: the INT8 and INT16 convolution kernels. */
#define VDLA_COMPUTE_PATH_SCALAR	1	/* portable C: INT8, INT16 */
#define VDLA_COMPUTE_PATH_AVX2		2	/* vdla's AVX2 kernels: INT8, INT16 */
#define VDLA_COMPUTE_PATH_ONEDNN	3	/* INT8 on oneDNN (VNNI/AMX), INT16 on AVX2 */
#define VDLA_COMPUTE_PATHS		4	/* one past the last */
/* FLOAT_ISA: the instruction set oneDNN computes FP16/FP32 convolutions with. */
#define VDLA_COMPUTE_ISA_OTHER		0
#define VDLA_COMPUTE_ISA_SSE41		1
#define VDLA_COMPUTE_ISA_AVX		2
#define VDLA_COMPUTE_ISA_AVX2		3
#define VDLA_COMPUTE_ISA_AVX2_VNNI	4
#define VDLA_COMPUTE_ISA_AVX512_CORE	5
#define VDLA_COMPUTE_ISA_AVX512_VNNI	6
#define VDLA_COMPUTE_ISA_AVX512_BF16	7
#define VDLA_COMPUTE_ISA_AMX		8
#define VDLA_COMPUTE_ISAS		9

/*
 * INT_STATUS bits. DONE(e): one or more groups of engine e completed; the
 * engine's S_STATUS says which (an engine runs its groups in order).
 */
#define VDLA_INT_DONE(engine)		(1u << (engine))
#define VDLA_INT_DONE_ALL		0x0000003fu
#define VDLA_INT_ERROR(engine)		(1u << (16 + (engine)))
#define VDLA_INT_ERROR_ALL		0x003f0000u
#define VDLA_INT_MMU_FAULT		(1u << 24)
#define VDLA_INT_TEST			(1u << 31)
/* Bits that software may raise through VDLA_REG_INT_SET. */
#define VDLA_INT_SOFTWARE_MASK		VDLA_INT_TEST
/* Every implemented interrupt bit. */
#define VDLA_INT_ALL \
	(VDLA_INT_DONE_ALL | VDLA_INT_ERROR_ALL | VDLA_INT_MMU_FAULT | VDLA_INT_TEST)

/* ---- Engines ------------------------------------------------------------ */
enum vdla_engine {
	VDLA_ENGINE_BDMA = 0,
	VDLA_ENGINE_CONV = 1,
	VDLA_ENGINE_SDP = 2,
	VDLA_ENGINE_PDP = 3,
	VDLA_ENGINE_CDP = 4,
	VDLA_ENGINE_RUBIK = 5,
	VDLA_NUM_ENGINES = 6,
};
/*
 * Register groups per engine: software programs up to this many operations
 * of an engine ahead, and one interrupt can complete several of them. The
 * guest's round trip for an interrupt is about as long as sixteen small
 * operations under TCG, so sixteen keep an engine busy through it.
 */
#define VDLA_NUM_GROUPS			16

/* ---- Device address space ---------------------------------------------- */
/*
 * Addresses below 2^39 go through the MMU (or are guest-physical with the
 * MMU off); [VDLA_SRAM_BASE, + SRAM_SIZE) is the device SRAM.
 */
#define VDLA_VA_BITS			39
#define VDLA_SRAM_BASE			(1ull << 48)

/* ---- MMU block, 0x1000-0x1fff ------------------------------------------ */
#define VDLA_REG_MMU_CTRL		0x1000	/* RW: VDLA_MMU_CTRL_* */
#define VDLA_REG_MMU_INVALIDATE		0x1004	/* WO: context | VDLA_MMU_INVALIDATE_ALL */
#define VDLA_REG_MMU_CONTEXTS		0x1008	/* RO: number of contexts */
#define VDLA_REG_MMU_FAULT_STATUS	0x1010	/* RO: VDLA_MMU_FAULT_* */
#define VDLA_REG_MMU_FAULT_ADDR_LO	0x1014	/* RO */
#define VDLA_REG_MMU_FAULT_ADDR_HI	0x1018	/* RO */
#define VDLA_REG_MMU_FAULT_CLEAR	0x101c	/* WO: write 1 */
#define VDLA_REG_MMU_CTX_BASE_LO(ctx)	(0x1100 + 8 * (ctx))	/* RW: table | ENABLE */
#define VDLA_REG_MMU_CTX_BASE_HI(ctx)	(0x1104 + 8 * (ctx))	/* RW */
#define VDLA_MMU_NUM_CONTEXTS		16

#define VDLA_MMU_CTRL_ENABLE		(1u << 0)
#define VDLA_MMU_CTX_ENABLE		(1u << 0)
#define VDLA_MMU_INVALIDATE_ALL		(1u << 31)

#define VDLA_MMU_FAULT_VALID		(1u << 0)
#define VDLA_MMU_FAULT_WRITE		(1u << 1)
#define VDLA_MMU_FAULT_REASON_SHIFT	4
#define VDLA_MMU_FAULT_REASON_MASK	(0xfu << 4)
#define VDLA_MMU_FAULT_ENGINE_SHIFT	8
#define VDLA_MMU_FAULT_ENGINE_MASK	(0xfu << 8)
#define VDLA_MMU_FAULT_CONTEXT_SHIFT	16
#define VDLA_MMU_FAULT_CONTEXT_MASK	(0xffu << 16)

enum vdla_mmu_fault_reason {
	VDLA_MMU_FAULT_UNMAPPED = 1,	/* no valid translation */
	VDLA_MMU_FAULT_NO_READ = 2,	/* read of a page without READ */
	VDLA_MMU_FAULT_READ_ONLY = 3,	/* write to a page without WRITE */
	VDLA_MMU_FAULT_BAD_CONTEXT = 4,	/* context not enabled or >= CONTEXTS */
	VDLA_MMU_FAULT_WALK = 5,	/* page table not readable */
	VDLA_MMU_FAULT_OUT_OF_RANGE = 6,/* address beyond VA space or SRAM */
};

/* Page-table entries (64-bit, little endian), three levels of 512. */
#define VDLA_PTE_VALID			(1ull << 0)
#define VDLA_PTE_READ			(1ull << 1)
#define VDLA_PTE_WRITE			(1ull << 2)
#define VDLA_PTE_ADDR_MASK		0x000ffffffffff000ull
#define VDLA_PAGE_SHIFT			12
#define VDLA_PAGE_SIZE			(1u << VDLA_PAGE_SHIFT)
#define VDLA_PT_LEVELS			3
#define VDLA_PT_ENTRIES			512

/* ---- Fault-injection window, 0x2000-0x2fff ----------------------------- */
#define VDLA_REG_FI_MODE(engine)	(0x2000 + 0x10 * (engine))	/* RW */
#define VDLA_REG_FI_COUNT(engine)	(0x2004 + 0x10 * (engine))	/* RW */
#define VDLA_REG_FI_DELAY_US(engine)	(0x2008 + 0x10 * (engine))	/* RW */
#define VDLA_FI_COUNT_FOREVER		0xffffffffu

enum vdla_fi_mode {
	VDLA_FI_NONE = 0,
	VDLA_FI_HANG = 1,	/* the operation never completes */
	VDLA_FI_DROP_IRQ = 2,	/* completes without DONE bit or message */
	VDLA_FI_DUP_IRQ = 3,	/* completes and sends its message twice */
	VDLA_FI_OP_ERROR = 4,	/* ends with ERROR_INJECTED, writes nothing */
	VDLA_FI_DELAY = 5,	/* completes FI_DELAY_US later */
	VDLA_FI_MODES
};

/* ---- Engine blocks, 0x4000 + 0x1000 * engine --------------------------- */
#define VDLA_ENGINE_BASE(engine)	(0x4000 + 0x1000 * (engine))
#define VDLA_ENGINE_BLOCK_SIZE		0x1000

/* Offsets inside an engine block */
#define VDLA_E_STATUS			0x000	/* RO: states of groups 0-7 */
#define VDLA_E_STATUS_HI		0x008	/* RO: states of groups 8-15 */
#define VDLA_E_ENABLE			0x00c	/* WO: bit g enables group g (3.1) */
#define VDLA_E_POINTER			0x004	/* RW: PRODUCER, RO: CONSUMER */
#define VDLA_E_GROUP_STAT(group)	(0x400 + 0x40 * (group))
#define VDLA_E_STAT_ERROR		0x00	/* + E_GROUP_STAT: VDLA_ERROR_* */
#define VDLA_E_STAT_MACS_LO		0x08
#define VDLA_E_STAT_MACS_HI		0x0c
#define VDLA_E_STAT_READ_LO		0x10	/* bytes read */
#define VDLA_E_STAT_READ_HI		0x14
#define VDLA_E_STAT_WRITE_LO		0x18	/* bytes written */
#define VDLA_E_STAT_WRITE_HI		0x1c
#define VDLA_E_STAT_TIME_LO		0x20	/* device time, ns */
#define VDLA_E_STAT_TIME_HI		0x24

/* The S_STATUS register holding @group's state, and where in it. */
#define VDLA_E_STATUS_GROUPS_PER_REG		8
#define VDLA_E_STATUS_REG(group) \
	((group) < VDLA_E_STATUS_GROUPS_PER_REG ? VDLA_E_STATUS : VDLA_E_STATUS_HI)
#define VDLA_E_STATUS_GROUP_SHIFT(group)	(4 * ((group) % VDLA_E_STATUS_GROUPS_PER_REG))
#define VDLA_E_STATUS_GROUP_MASK		0x7u
#define VDLA_E_POINTER_PRODUCER_MASK	0xfu		/* bits 3:0, RW */
#define VDLA_E_POINTER_CONSUMER_SHIFT	16		/* bits 19:16, RO */
#define VDLA_E_POINTER_CONSUMER_MASK	(0xfu << VDLA_E_POINTER_CONSUMER_SHIFT)
#define VDLA_E_ENABLE_GROUPS		((1u << VDLA_NUM_GROUPS) - 1)	/* bits 15:0 */

enum vdla_group_state {
	VDLA_GROUP_IDLE = 0,
	VDLA_GROUP_PENDING = 1,
	VDLA_GROUP_RUNNING = 2,
	VDLA_GROUP_DONE = 3,
	VDLA_GROUP_ERROR = 4,
};

/* The D window (0x100-0x3ff) addresses the group S_POINTER.PRODUCER selects. */
#define VDLA_D_WINDOW			0x100
#define VDLA_D_WINDOW_SIZE		0x300
#define VDLA_D_OP_ENABLE		0x100	/* RW: write 1 to hand the group over */
#define VDLA_D_CONTEXT			0x104	/* RW: MMU context of the operation */
#define VDLA_D_CFG			0x108	/* RW: engine-specific flags */

/* A tensor descriptor: 0x30 bytes at an engine-specific offset. */
#define VDLA_T_ADDR_LO			0x00
#define VDLA_T_ADDR_HI			0x04
#define VDLA_T_DTYPE			0x08
#define VDLA_T_W			0x0c
#define VDLA_T_H			0x10
#define VDLA_T_C			0x14
#define VDLA_T_N			0x18
#define VDLA_T_STRIDE_W			0x1c	/* bytes between elements along W */
#define VDLA_T_STRIDE_H			0x20	/* line stride */
#define VDLA_T_STRIDE_C			0x24	/* surface stride */
#define VDLA_T_STRIDE_N			0x28	/* batch stride */
#define VDLA_T_SIZE			0x30

enum vdla_dtype {
	VDLA_DTYPE_INT8 = 0,
	VDLA_DTYPE_INT16 = 1,
	VDLA_DTYPE_INT32 = 2,
	VDLA_DTYPE_FP16 = 3,
	VDLA_DTYPE_FP32 = 4,
	VDLA_DTYPES
};

enum vdla_error {
	VDLA_ERROR_NONE = 0,
	VDLA_ERROR_DTYPE = 1,		/* unsupported data type combination */
	VDLA_ERROR_SHAPE = 2,		/* dimensions inconsistent or zero */
	VDLA_ERROR_STRIDE = 3,		/* stride not a multiple of the element size */
	VDLA_ERROR_PARAM = 4,		/* a parameter out of its range */
	VDLA_ERROR_MMU_FAULT = 5,	/* an access faulted, see MMU_FAULT_* */
	VDLA_ERROR_INJECTED = 6,	/* fault injection */
	VDLA_ERROR_CHAIN = 7,		/* fused partner missing or failed */
	VDLA_ERROR_LIMIT = 8,		/* beyond a device limit */
};

/* Rounding modes (D_CFG ROUND fields) */
enum vdla_round {
	VDLA_ROUND_TO_ZERO = 0,
	VDLA_ROUND_FLOOR = 1,
	VDLA_ROUND_HALF_UP = 2,		/* ties toward +infinity */
	VDLA_ROUND_HALF_AWAY = 3,	/* ties away from zero */
	VDLA_ROUND_HALF_EVEN = 4,	/* ties to even */
	VDLA_ROUND_MODES
};

/* ---- BDMA: strided byte copies ----------------------------------------- */
#define VDLA_BDMA_SRC_ADDR_LO		0x110
#define VDLA_BDMA_SRC_ADDR_HI		0x114
#define VDLA_BDMA_DST_ADDR_LO		0x118
#define VDLA_BDMA_DST_ADDR_HI		0x11c
#define VDLA_BDMA_LINE_BYTES		0x120
#define VDLA_BDMA_LINES			0x124
#define VDLA_BDMA_SRC_LINE_STRIDE	0x128
#define VDLA_BDMA_DST_LINE_STRIDE	0x12c
#define VDLA_BDMA_SURFACES		0x130
#define VDLA_BDMA_SRC_SURF_STRIDE	0x134
#define VDLA_BDMA_DST_SURF_STRIDE	0x138

/* ---- CONV: direct convolution ------------------------------------------ */
#define VDLA_CONV_CFG_DST_FLYING	(1u << 0)	/* output to SDP */
#define VDLA_CONV_SRC			0x110	/* tensor */
#define VDLA_CONV_WGT			0x140	/* tensor: W=KW H=KH C=Cin/groups N=Cout */
#define VDLA_CONV_DST			0x170	/* tensor */
#define VDLA_CONV_STRIDE		0x1a0	/* x | y << 16 */
#define VDLA_CONV_PAD_LR		0x1a4	/* left | right << 16 */
#define VDLA_CONV_PAD_TB		0x1a8	/* top | bottom << 16 */
#define VDLA_CONV_DILATION		0x1ac	/* x | y << 16 */
#define VDLA_CONV_GROUPS		0x1b0
#define VDLA_CONV_PAD_VALUE		0x1b4	/* int32, or fp32 bits */

/* ---- SDP: per-element processing --------------------------------------- */
#define VDLA_SDP_CFG_SRC_FLYING		(1u << 0)	/* input from CONV */
#define VDLA_SDP_CFG_DST_FLYING		(1u << 1)	/* output to PDP */
#define VDLA_SDP_CFG_BIAS_SHIFT		4	/* VDLA_SDP_MODE_* */
#define VDLA_SDP_CFG_SCALE_SHIFT	6	/* VDLA_SDP_MODE_* */
#define VDLA_SDP_CFG_EW_SHIFT		8	/* VDLA_SDP_EW_OP_* */
#define VDLA_SDP_CFG_ACT_SHIFT		12	/* VDLA_SDP_ACT_* */
#define VDLA_CFG_ROUND_SHIFT		16	/* VDLA_ROUND_*, 3 bits */
#define VDLA_CFG_WRAP			(1u << 19)	/* wrap instead of saturate */
#define VDLA_SDP_FIELD_MASK		0x3u
#define VDLA_CFG_ROUND_MASK		0x7u

enum vdla_sdp_mode {
	VDLA_SDP_MODE_NONE = 0,
	VDLA_SDP_MODE_PER_TENSOR = 1,
	VDLA_SDP_MODE_PER_CHANNEL = 2,
};
enum vdla_sdp_ew {
	VDLA_SDP_EW_OP_NONE = 0,
	VDLA_SDP_EW_OP_ADD = 1,
	VDLA_SDP_EW_OP_MUL = 2,
	VDLA_SDP_EW_OP_MAX = 3,
};
enum vdla_sdp_act {
	VDLA_SDP_ACT_NONE = 0,
	VDLA_SDP_ACT_RELU = 1,
	VDLA_SDP_ACT_CLIP = 2,
	VDLA_SDP_ACT_LUT = 3,
};

#define VDLA_SDP_SRC			0x110	/* tensor */
#define VDLA_SDP_DST			0x140	/* tensor */
#define VDLA_SDP_EW			0x170	/* tensor: second operand */
#define VDLA_SDP_BIAS_ADDR_LO		0x1a0	/* per-channel int32 / fp32 */
#define VDLA_SDP_BIAS_ADDR_HI		0x1a4
#define VDLA_SDP_BIAS_VALUE		0x1a8	/* per-tensor int32 / fp32 bits */
#define VDLA_SDP_SCALE_ADDR_LO		0x1b0	/* per-channel {int32 mul, int32 shift} / fp32 */
#define VDLA_SDP_SCALE_ADDR_HI		0x1b4
#define VDLA_SDP_SCALE_MUL		0x1b8	/* per-tensor int32 / fp32 bits */
#define VDLA_SDP_SCALE_SHIFT		0x1bc	/* per-tensor, 0..63 */
#define VDLA_SDP_EW_MUL			0x1c0	/* int32 / fp32 bits */
#define VDLA_SDP_EW_SHIFT		0x1c4	/* 0..63 */
#define VDLA_SDP_EW_POST_SHIFT		0x1c8	/* 0..63, after EW MUL */
#define VDLA_SDP_CLIP_MIN		0x1d0	/* int32 / fp32 bits */
#define VDLA_SDP_CLIP_MAX		0x1d4
#define VDLA_SDP_LUT_ADDR_LO		0x1e0	/* 257 entries: int16 / fp32 */
#define VDLA_SDP_LUT_ADDR_HI		0x1e4
#define VDLA_SDP_LUT_START		0x1e8	/* int32 / fp32 bits */
#define VDLA_SDP_LUT_SHIFT		0x1ec	/* int path: 0..31; float path: step, fp32 bits */
#define VDLA_SDP_OUT_OFFSET		0x1f0	/* int32, added before the output conversion */
#define VDLA_LUT_ENTRIES		257

/* ---- PDP: pooling ------------------------------------------------------ */
#define VDLA_PDP_CFG_SRC_FLYING		(1u << 0)	/* input from SDP */
#define VDLA_PDP_CFG_METHOD_SHIFT	4	/* VDLA_PDP_* */
#define VDLA_PDP_CFG_CEIL		(1u << 6)
#define VDLA_PDP_CFG_AVG_INCLUDE_PAD	(1u << 7)
enum vdla_pdp_method {
	VDLA_PDP_MAX = 0,
	VDLA_PDP_AVG = 1,
	VDLA_PDP_MIN = 2,
};
#define VDLA_PDP_SRC			0x110
#define VDLA_PDP_DST			0x140
#define VDLA_PDP_KERNEL			0x1a0	/* w | h << 16 */
#define VDLA_PDP_STRIDE			0x1a4	/* x | y << 16 */
#define VDLA_PDP_PAD_LR			0x1a8
#define VDLA_PDP_PAD_TB			0x1ac

/* ---- CDP: cross-channel local response normalisation ------------------- */
#define VDLA_CDP_SRC			0x110
#define VDLA_CDP_DST			0x140
#define VDLA_CDP_SIZE			0x1a0	/* window, odd, 1..15 */
#define VDLA_CDP_LUT_ADDR_LO		0x1a4	/* int path: 257 x int32 */
#define VDLA_CDP_LUT_ADDR_HI		0x1a8
#define VDLA_CDP_LUT_SHIFT		0x1ac	/* int path: 0..62 */
#define VDLA_CDP_OUT_SHIFT		0x1b0	/* int path: 0..62 */
#define VDLA_CDP_K			0x1b4	/* float path: fp32 bits */
#define VDLA_CDP_ALPHA			0x1b8
#define VDLA_CDP_BETA			0x1bc

/* ---- RUBIK: data reorganisation ---------------------------------------- */
#define VDLA_RUBIK_CFG_MODE_MASK	0x7u
enum vdla_rubik_mode {
	VDLA_RUBIK_PERMUTE = 0,
	VDLA_RUBIK_RESHAPE = 1,
	VDLA_RUBIK_CONTRACT = 2,	/* depth to space */
	VDLA_RUBIK_SPLIT = 3,		/* space to depth */
};
#define VDLA_RUBIK_SRC			0x110
#define VDLA_RUBIK_DST			0x140
#define VDLA_RUBIK_PERM			0x1a0	/* 2 bits per output dim: W, H, C, N */
#define VDLA_RUBIK_BLOCK		0x1a4	/* x | y << 16 */

/* Dimension indices used by VDLA_RUBIK_PERM */
enum vdla_dim {
	VDLA_DIM_W = 0,
	VDLA_DIM_H = 1,
	VDLA_DIM_C = 2,
	VDLA_DIM_N = 3,
};

/* ---- Limits ------------------------------------------------------------ */
#define VDLA_MAX_DIM			65535
#define VDLA_MAX_TENSOR_BYTES		(1ull << 31)
#define VDLA_MAX_TENSOR_ELEMENTS	(1ull << 28)	/* W * H * C * N */
#define VDLA_CONV_MAX_KERNEL		32
#define VDLA_CONV_MAX_STRIDE		16
#define VDLA_CONV_MAX_DILATION		16
#define VDLA_CONV_MAX_PAD		31
#define VDLA_CONV_MAX_REDUCTION		65536	/* Cin/groups * KH * KW */
#define VDLA_CONV_MAX_MACS		(1ull << 36)	/* per operation */
/* Host memory per operation, the x-op-memory-mb property (not a register). */
#define VDLA_OP_MEMORY_DEFAULT_MB	1024
#define VDLA_OP_MEMORY_MIN_MB		16
#define VDLA_OP_MEMORY_MAX_MB		65536
#define VDLA_PDP_MAX_KERNEL		16
#define VDLA_PDP_MAX_STRIDE		16

/* ---- Shape rules shared by the device and its firmware ----------------- */

/*
 * Output size of a convolution along one axis (docs/hw-spec.md, "CONV"), or
 * -1 when the dilated kernel does not fit the padded input.
 */
static inline long long vdla_conv_output_size(long long in, long long pad_a, long long pad_b,
					      long long kernel, long long dilation,
					      long long stride)
{
	long long numerator = in + pad_a + pad_b - ((kernel - 1) * dilation + 1);

	return numerator < 0 ? -1 : numerator / stride + 1;
}

/*
 * Output size of pooling along one axis (docs/hw-spec.md, "PDP"), or 0 when
 * the kernel does not fit; in ceil mode the last window must start inside the
 * input or the leading padding.
 */
static inline long long vdla_pool_output_size(long long in, long long kernel, long long stride,
					      long long pad_a, long long pad_b, int ceil_mode)
{
	long long base = in + pad_a + pad_b - kernel, out;

	if (base < 0)
		return 0;
	out = (ceil_mode ? (base + stride - 1) / stride : base / stride) + 1;
	if (ceil_mode && (out - 1) * stride >= in + pad_a)
		out--;
	return out;
}

#endif /* VDLA_REGS_H */
