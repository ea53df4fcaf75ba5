// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * opannotate or opreport (its main() built as whole_tool_main()) with
 * every ELF image's static table (a stripped x86 image's dynamic one)
 * read whole when the image is opened, as before the tools read only the
 * parts their samples need: the tests compare the two outputs byte for
 * byte.
 */
#undef main
#include <stdbool.h>

#include "image_bfd.h"

int whole_tool_main(int argc, char **argv);

int main(int argc, char **argv)
{
	image_bfd_whole_tables(true);
	return whole_tool_main(argc, argv);
}
