package dev.mana.inspector;

/**
 * The layout of our image format v1 as numbers: the Java copy of {@code core-native/include/mana/image_format.h},
 * which is the definition (docs/image-format.md explains it). Nothing here is written by hand without the
 * header saying the same: {@code ImageLayoutTest} compiles a C program that prints {@code offsetof} and
 * {@code sizeof} of every field of every {@code struct mana_img_*} in the header and the value of every
 * {@code MANA_*} constant, and wants exactly the constants of this class, with the same values.
 *
 * <p>Names: a field {@code f} of {@code struct mana_img_s} is {@code OFF_S_F}, the struct's size {@code SIZEOF_S};
 * a constant {@code MANA_X} is {@code X}.
 */
public final class ImageLayout {
    private ImageLayout() {}

    // ---- constants (MANA_*) ----

    public static final String IMG_MAGIC = "MANAIMG1";
    public static final int IMG_VERSION = 1;
    public static final int IMG_HEADER_SIZE = 256;
    public static final int IMG_PAGE_SIZE = 4096;
    public static final String IMG_SUFFIX = ".mana";
    public static final String IMG_TMP_SUFFIX = ".tmp";
    public static final int IMG_F_MPI = 0x1;
    /** A generation of an incremental chain: pages in no run of a region are the parent image's. */
    public static final int IMG_F_INCREMENTAL = 0x2;
    /** Incremental checkpoints were asked for, the kernel could not track written pages: a full image. */
    public static final int IMG_F_UNTRACKED = 0x4;

    /** Rules both readers apply (docs/image-format.md, "What a reader checks"). */
    public static final int IMG_MAX_SECTIONS = 64;
    public static final long IMG_MAX_META = 128L << 20;
    public static final int IMG_MAX_NAME = 4095;
    public static final int IMG_MAX_REGIONS = 1 << 20;
    public static final int IMG_MAX_SIGACTIONS = 64;
    public static final int IMG_MAX_TIMERS = 3;
    public static final int IMG_MAX_CHAIN = 64;

    public static final int SEC_PROCESS = 1;
    public static final int SEC_MEMORY = 2;
    public static final int SEC_THREADS = 3;
    public static final int SEC_FILES = 4;
    public static final int SEC_SIGNALS = 5;
    public static final int SEC_MPI = 6;
    public static final int SEC_FILEDATA = 7;
    public static final int SEC_MPI_OBJECTS = 8;
    public static final int SEC_PARENT = 9;
    public static final int SEC_ZSTD = 10;

    public static final int REG_SHARED = 0x001;
    public static final int REG_ANON = 0x002;
    public static final int REG_FILE = 0x004;
    public static final int REG_STACK = 0x008;
    public static final int REG_HEAP = 0x010;
    public static final int REG_VDSO = 0x020;
    public static final int REG_VVAR = 0x040;
    public static final int REG_LOWER = 0x080;
    public static final int REG_GUARD = 0x100;
    public static final int REG_ZSTD = 0x200;

    public static final int THR_MAIN = 0x1;
    public static final int THR_CKPT = 0x2;
    public static final int IMG_NGREG = 23;

    public static final int FILE_REGULAR = 1;
    public static final int FILE_DIR = 2;
    public static final int FILE_CHAR = 3;
    public static final int FILE_PIPE = 4;
    public static final int FILE_SOCKET = 5;
    public static final int FILE_OTHER = 6;
    public static final int FD_INHERITED = 0x100;

    // ---- struct mana_img_header ----
    public static final int SIZEOF_HEADER = 256;
    public static final int OFF_HEADER_MAGIC = 0;
    public static final int OFF_HEADER_VERSION = 8;
    public static final int OFF_HEADER_HEADER_SIZE = 12;
    public static final int OFF_HEADER_FILE_SIZE = 16;
    public static final int OFF_HEADER_SECTION_TABLE_OFFSET = 24;
    public static final int OFF_HEADER_SECTION_COUNT = 32;
    public static final int OFF_HEADER_SECTION_ENTRY_SIZE = 36;
    public static final int OFF_HEADER_PAGE_SIZE = 40;
    public static final int OFF_HEADER_FLAGS = 44;
    public static final int OFF_HEADER_RANK = 48;
    public static final int OFF_HEADER_NRANKS = 52;
    public static final int OFF_HEADER_GENERATION = 56;
    public static final int OFF_HEADER_PID = 60;
    public static final int OFF_HEADER_TIME_UNIX_NS = 64;
    public static final int OFF_HEADER_MAPPED_BYTES = 72;
    public static final int OFF_HEADER_STORED_BYTES = 80;
    public static final int OFF_HEADER_HEADER_CRC = 88;
    public static final int OFF_HEADER_RESERVED0 = 92;
    public static final int OFF_HEADER_HOST = 96;
    public static final int OFF_HEADER_MPI = 160;
    public static final int OFF_HEADER_PROGRAM = 176;

    // ---- struct mana_img_section (a section table entry) ----
    public static final int SIZEOF_SECTION = 32;
    public static final int OFF_SECTION_TYPE = 0;
    public static final int OFF_SECTION_VERSION = 4;
    public static final int OFF_SECTION_OFFSET = 8;
    public static final int OFF_SECTION_LENGTH = 16;
    public static final int OFF_SECTION_CRC = 24;
    public static final int OFF_SECTION_COUNT = 28;

    // ---- struct mana_img_process ----
    public static final int SIZEOF_PROCESS = 128;
    public static final int OFF_PROCESS_PID = 0;
    public static final int OFF_PROCESS_PPID = 4;
    public static final int OFF_PROCESS_SID = 8;
    public static final int OFF_PROCESS_PGID = 12;
    public static final int OFF_PROCESS_UMASK = 16;
    public static final int OFF_PROCESS_PTHREAD_TID_OFFSET = 20;
    public static final int OFF_PROCESS_LH_INFO_SLOT = 24;
    public static final int OFF_PROCESS_VDSO_START = 32;
    public static final int OFF_PROCESS_VDSO_END = 40;
    public static final int OFF_PROCESS_VVAR_START = 48;
    public static final int OFF_PROCESS_VVAR_END = 56;
    public static final int OFF_PROCESS_UPPER_STACK_START = 64;
    public static final int OFF_PROCESS_UPPER_STACK_END = 72;
    public static final int OFF_PROCESS_UPPER_ENTRY = 80;
    public static final int OFF_PROCESS_UPPER_BRK_SLOT = 88;
    public static final int OFF_PROCESS_UPPER_BRK = 96;
    public static final int OFF_PROCESS_UPPER_FAULT_ACTS = 104;
    public static final int OFF_PROCESS_RESERVED = 112;

    // ---- struct mana_img_region (then the name, then the runs) ----
    public static final int SIZEOF_REGION = 80;
    public static final int OFF_REGION_START = 0;
    public static final int OFF_REGION_END = 8;
    public static final int OFF_REGION_PROT = 16;
    public static final int OFF_REGION_FLAGS = 20;
    public static final int OFF_REGION_FILE_OFFSET = 24;
    public static final int OFF_REGION_INODE = 32;
    public static final int OFF_REGION_DEV_MAJOR = 40;
    public static final int OFF_REGION_DEV_MINOR = 44;
    public static final int OFF_REGION_PAYLOAD_OFFSET = 48;
    public static final int OFF_REGION_STORED_BYTES = 56;
    public static final int OFF_REGION_RUN_COUNT = 64;
    public static final int OFF_REGION_PAYLOAD_CRC = 68;
    public static final int OFF_REGION_NAME_LEN = 72;
    public static final int OFF_REGION_ZERO_RUN_COUNT = 76;

    // ---- struct mana_img_parent (PARENT section, then the parent's file name) ----
    public static final int SIZEOF_PARENT = 24;
    public static final int OFF_PARENT_GENERATION = 0;
    public static final int OFF_PARENT_HEADER_CRC = 4;
    public static final int OFF_PARENT_FILE_SIZE = 8;
    public static final int OFF_PARENT_DEPTH = 16;
    public static final int OFF_PARENT_NAME_LEN = 20;

    // ---- struct mana_img_zstd (ZSTD section: a compressed region's payload length) ----
    public static final int SIZEOF_ZSTD = 16;
    public static final int OFF_ZSTD_REGION = 0;
    public static final int OFF_ZSTD_LEVEL = 4;
    public static final int OFF_ZSTD_COMPRESSED_BYTES = 8;

    // ---- struct mana_img_run ----
    public static final int SIZEOF_RUN = 16;
    public static final int OFF_RUN_FIRST_PAGE = 0;
    public static final int OFF_RUN_PAGE_COUNT = 8;

    // ---- struct mana_img_thread ----
    public static final int SIZEOF_THREAD = 296;
    public static final int OFF_THREAD_TID = 0;
    public static final int OFF_THREAD_FLAGS = 4;
    public static final int OFF_THREAD_FS_BASE = 8;
    public static final int OFF_THREAD_GS_BASE = 16;
    public static final int OFF_THREAD_CTID_ADDR = 24;
    public static final int OFF_THREAD_STACK_START = 32;
    public static final int OFF_THREAD_STACK_END = 40;
    public static final int OFF_THREAD_UCONTEXT_ADDR = 48;
    public static final int OFF_THREAD_CTX_ADDR = 56;
    public static final int OFF_THREAD_SIGMASK = 64;
    public static final int OFF_THREAD_ROBUST_LIST = 72;
    public static final int OFF_THREAD_ROBUST_LIST_LEN = 80;
    public static final int OFF_THREAD_ALTSTACK_SP = 88;
    public static final int OFF_THREAD_ALTSTACK_SIZE = 96;
    public static final int OFF_THREAD_ALTSTACK_FLAGS = 104;
    public static final int OFF_THREAD_RESERVED = 108;
    public static final int OFF_THREAD_GREGS = 112;

    // ---- struct mana_img_file (then the path) ----
    public static final int SIZEOF_FILE = 64;
    public static final int OFF_FILE_FD = 0;
    public static final int OFF_FILE_KIND = 4;
    public static final int OFF_FILE_OPEN_FLAGS = 8;
    public static final int OFF_FILE_FD_FLAGS = 12;
    public static final int OFF_FILE_OFFSET = 16;
    public static final int OFF_FILE_SIZE = 24;
    public static final int OFF_FILE_MTIME_NS = 32;
    public static final int OFF_FILE_INODE = 40;
    public static final int OFF_FILE_DEV = 48;
    public static final int OFF_FILE_MODE = 56;
    public static final int OFF_FILE_PATH_LEN = 60;

    // ---- struct mana_img_signals (head of SIGNALS), mana_img_sigaction, mana_img_itimer ----
    public static final int SIZEOF_SIGNALS = 16;
    public static final int OFF_SIGNALS_NSIG = 0;
    public static final int OFF_SIGNALS_NTIMERS = 4;
    public static final int OFF_SIGNALS_PENDING = 8;
    public static final int SIZEOF_SIGACTION = 40;
    public static final int OFF_SIGACTION_SIGNO = 0;
    public static final int OFF_SIGACTION_RESERVED = 4;
    public static final int OFF_SIGACTION_HANDLER = 8;
    public static final int OFF_SIGACTION_FLAGS = 16;
    public static final int OFF_SIGACTION_RESTORER = 24;
    public static final int OFF_SIGACTION_MASK = 32;
    public static final int SIZEOF_ITIMER = 24;
    public static final int OFF_ITIMER_WHICH = 0;
    public static final int OFF_ITIMER_RESERVED = 4;
    public static final int OFF_ITIMER_INTERVAL_NS = 8;
    public static final int OFF_ITIMER_VALUE_NS = 16;

    // ---- struct mana_img_filedata (then the contents) ----
    public static final int SIZEOF_FILEDATA = 32;
    public static final int OFF_FILEDATA_FD = 0;
    public static final int OFF_FILEDATA_RESERVED = 4;
    public static final int OFF_FILEDATA_SIZE = 8;
    public static final int OFF_FILEDATA_INODE = 16;
    public static final int OFF_FILEDATA_DEV = 24;

    // ---- struct mana_img_mpi (the MPI section) ----
    public static final int SIZEOF_MPI = 64;
    public static final int OFF_MPI_KIND = 0;
    public static final int OFF_MPI_THREAD_LEVEL = 4;
    public static final int OFF_MPI_COMMS = 8;
    public static final int OFF_MPI_GROUPS = 12;
    public static final int OFF_MPI_DATATYPES = 16;
    public static final int OFF_MPI_OPS = 20;
    public static final int OFF_MPI_REQUESTS = 24;
    public static final int OFF_MPI_BUFFERED_MSGS = 28;
    public static final int OFF_MPI_BUFFERED_BYTES = 32;
    public static final int OFF_MPI_SENT = 40;
    public static final int OFF_MPI_RECEIVED = 48;
    public static final int OFF_MPI_REPLAY_ENTRIES = 56;
    public static final int OFF_MPI_FINALIZED = 60;

    // ---- struct mana_img_mpi_object (MPI_OBJECTS: each record, then its name) ----
    public static final int MPI_OBJ_FILE = 1;
    public static final int MPI_OBJF_SHARED_FP = 0x1;
    public static final int MPI_OBJF_ATOMIC = 0x2;
    public static final int MPI_OBJF_VIEW = 0x4;
    public static final int MPI_OBJ_WIN = 2;
    public static final int MPI_OBJF_FENCE = 0x8;
    public static final int MPI_OBJF_LOCK_ALL = 0x10;
    public static final int MPI_OBJF_LOCKS = 0x20;
    public static final int SIZEOF_MPI_OBJECT = 64;
    public static final int OFF_MPI_OBJECT_KIND = 0;
    public static final int OFF_MPI_OBJECT_FLAGS = 4;
    public static final int OFF_MPI_OBJECT_AMODE = 8;
    public static final int OFF_MPI_OBJECT_COMM_SIZE = 12;
    public static final int OFF_MPI_OBJECT_POSITION = 16;
    public static final int OFF_MPI_OBJECT_SHARED_POSITION = 24;
    public static final int OFF_MPI_OBJECT_DISP = 32;
    public static final int OFF_MPI_OBJECT_DEV = 40;
    public static final int OFF_MPI_OBJECT_INO = 48;
    public static final int OFF_MPI_OBJECT_NAME_LEN = 56;
    public static final int OFF_MPI_OBJECT_RESERVED = 60;
}
