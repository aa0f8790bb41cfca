/* Start-up state kept on one page.
 *
 * A short process touches a few dozen of the library's variables, but the
 * linker lays .bss out file by file, and the small ones sat between tables
 * of kilobytes to megabytes that a short process never touches: each on a
 * page of its own, each page one page fault, in each of the two copies of
 * the library (docs/performance.md, "Page faults of a short process").
 * DLT_HOT puts a variable in .data1, which the linker places right after
 * .data: the last page of the file's writable segment, which the dynamic
 * loader writes anyway when it zeroes the part of it beyond the file.  Only
 * small variables that every traced process touches belong here; each
 * costs its size in the file. */
#ifndef DLTRACE_HOT_H
#define DLTRACE_HOT_H

#define DLT_HOT __attribute__((section(".data1")))

/* Code every traced process runs, put with the constructors (the
 * section GCC gives them), at the start of the library's text.  The
 * kernel maps a file's pages 64 KiB at a time around a fault where they
 * are in the page cache: spread over the text, the code a short process
 * runs cost a page fault per 64 KiB it touched (issue 31). */
#define DLT_START __attribute__((section(".text.startup")))

#endif
