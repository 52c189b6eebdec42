/*
 * phases.h - the phase numbers of the coordinator's COLLECTIVE (docs/coordinator-protocol.md §4.2, §6).
 *
 * The table is defined once, as the `phase` lines of docs/wire-corpus/frames.in (the golden frame corpus
 * both implementations test): these names are checked against it by test_codec (ctest coord_test_codec),
 * and the coordinator's Protocol.PHASE_* by WireCorpusTest.  Change the corpus, then both.
 */
#ifndef MANA_PHASES_H
#define MANA_PHASES_H

enum mana_coord_phase {
    MANA_PHASE_SUSPENDED       = 1,     /* all user threads stopped */
    MANA_PHASE_DRAINED         = 2,     /* MPI drains finished */
    MANA_PHASE_CHECKPOINTED    = 3,     /* image written and fsync'd */
    MANA_PHASE_COMMITTED       = 4,     /* image renamed to its final name */
    MANA_PHASE_DRAIN_FIRST     = 16,    /* drain rounds of MPI runtimes use 16..31 */
    MANA_PHASE_P2P_DRAIN_FIRST = 18,    /* the point-to-point drain's rounds: 18..31 */
    MANA_PHASE_DRAIN_LAST      = 31,
    MANA_PHASE_RESTARTED       = 32,    /* restart: memory and threads back */
    MANA_PHASE_REFILLED        = 33,    /* restart: MPI state rebuilt */
    MANA_PHASE_RESUMED         = 34,    /* restart: user code resumes */
    MANA_PHASE_FREE_FIRST      = 64,    /* 64..65535 change no state: free for the runtime and tools */
    MANA_PHASE_COLL_DRAIN_LAST = 16447, /* the collective drain's rounds cycle through 64..16447 */
    MANA_PHASE_SETTLE_FIRST    = 16448, /* the collective drain's settle rounds: 16448 + round */
};

/* The collective drain takes its phases modulo this span (a power of two: a mask). */
#define MANA_PHASE_COLL_DRAIN_MASK (MANA_PHASE_COLL_DRAIN_LAST - MANA_PHASE_FREE_FIRST)

#ifdef __cplusplus
static_assert
#else
_Static_assert
#endif
    ((MANA_PHASE_COLL_DRAIN_MASK & (MANA_PHASE_COLL_DRAIN_MASK + 1)) == 0 &&
     MANA_PHASE_SETTLE_FIRST == MANA_PHASE_COLL_DRAIN_LAST + 1, "the collective drain's phases");

#endif
