package dev.mana.mpidiag;

/**
 * One reference to an MPI name in a source file (before the manifest is asked about it).
 *
 * @param name        the name as written (for a macro use: the MPI name its expansion reaches)
 * @param range       where it is: the name itself, or the macro name at the use site
 * @param call        followed by an argument list (C), or the name of a CALL statement (Fortran)
 * @param viaMacro    the macro whose expansion reaches it, or null
 * @param threadMultiple the range of an MPI_THREAD_MULTIPLE argument of an MPI_Init_thread call, or null
 */
public record MpiReference(String name, Range range, boolean call, String viaMacro, Range threadMultiple) {}
