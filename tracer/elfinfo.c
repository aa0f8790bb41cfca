#define _GNU_SOURCE
#include "elfinfo.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#define DLT_ELF_MAX_PHDRS 64
#define DLT_ELF_MAX_DYN 256

static int dlt_pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got,
				  (off_t)(off + got));
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* File offset of a virtual address, through the PT_LOAD that holds it. */
static int dlt_vaddr_to_off(const ElfW(Phdr) * ph, int n, uint64_t va,
			    uint64_t *off)
{
	for (int i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (va >= ph[i].p_vaddr &&
		    va < ph[i].p_vaddr + ph[i].p_filesz) {
			*off = ph[i].p_offset + (va - ph[i].p_vaddr);
			return 0;
		}
	}
	return -1;
}

static void dlt_read_str(int fd, uint64_t off, char *dst, size_t cap)
{
	ssize_t r = pread(fd, dst, cap - 1, (off_t)off);
	if (r < 0)
		r = 0;
	dst[r] = '\0';
}

int dlt_elf_read(const char *path, struct dlt_elf_info *out)
{
	memset(out, 0, sizeof(*out));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int ret = -ENOEXEC;
	ElfW(Ehdr) eh;
	if (dlt_pread_all(fd, &eh, sizeof(eh), 0) != 0 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] !=
		    (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0)
		goto out;
	ElfW(Phdr) ph[DLT_ELF_MAX_PHDRS];
	int nph =
		eh.e_phnum < DLT_ELF_MAX_PHDRS ? eh.e_phnum : DLT_ELF_MAX_PHDRS;
	if (dlt_pread_all(fd, ph, (size_t)nph * sizeof(ph[0]), eh.e_phoff))
		goto out;
	ret = 0;
	for (int i = 0; i < nph; i++) {
		if (ph[i].p_type == PT_NOTE && out->build_id_len == 0) {
			uint8_t buf[1024];
			size_t n = ph[i].p_filesz < sizeof(buf) ? ph[i].p_filesz
								: sizeof(buf);
			if (dlt_pread_all(fd, buf, n, ph[i].p_offset))
				continue;
			size_t p = 0;
			while (p + sizeof(ElfW(Nhdr)) <= n) {
				ElfW(Nhdr) nh;
				memcpy(&nh, buf + p, sizeof(nh));
				size_t name_off = p + sizeof(nh);
				size_t desc_off =
					name_off + ((nh.n_namesz + 3u) & ~3u);
				size_t next =
					desc_off + ((nh.n_descsz + 3u) & ~3u);
				if (next > n || next <= p)
					break;
				if (nh.n_type == NT_GNU_BUILD_ID &&
				    nh.n_namesz == 4 &&
				    memcmp(buf + name_off, "GNU", 4) == 0) {
					uint32_t l = nh.n_descsz;
					if (l > sizeof(out->build_id))
						l = sizeof(out->build_id);
					memcpy(out->build_id, buf + desc_off,
					       l);
					out->build_id_len = l;
					break;
				}
				p = next;
			}
		}
	}
	for (int i = 0; i < nph; i++) {
		if (ph[i].p_type != PT_DYNAMIC)
			continue;
		ElfW(Dyn) dyn[DLT_ELF_MAX_DYN];
		size_t nd = ph[i].p_filesz / sizeof(ElfW(Dyn));
		if (nd > DLT_ELF_MAX_DYN)
			nd = DLT_ELF_MAX_DYN;
		if (dlt_pread_all(fd, dyn, nd * sizeof(dyn[0]), ph[i].p_offset))
			break;
		uint64_t strtab = 0, soname = 0, runpath = 0, rpath = 0;
		int have_strtab = 0;
		for (size_t k = 0; k < nd && dyn[k].d_tag != DT_NULL; k++) {
			switch (dyn[k].d_tag) {
			case DT_STRTAB:
				strtab = dyn[k].d_un.d_ptr;
				have_strtab = 1;
				break;
			case DT_SONAME:
				soname = dyn[k].d_un.d_val + 1;
				break;
			case DT_RUNPATH:
				runpath = dyn[k].d_un.d_val + 1;
				out->has_runpath = 1;
				break;
			case DT_RPATH:
				rpath = dyn[k].d_un.d_val + 1;
				out->has_rpath = 1;
				break;
			}
		}
		uint64_t stroff;
		if (!have_strtab || dlt_vaddr_to_off(ph, nph, strtab, &stroff))
			break;
		if (soname)
			dlt_read_str(fd, stroff + soname - 1, out->soname,
				     sizeof(out->soname));
		if (runpath)
			dlt_read_str(fd, stroff + runpath - 1, out->runpath,
				     sizeof(out->runpath));
		if (rpath)
			dlt_read_str(fd, stroff + rpath - 1, out->rpath,
				     sizeof(out->rpath));
		break;
	}
out:
	close(fd);
	return ret;
}
