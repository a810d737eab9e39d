/* Shared by the gsio command's verbs (gsio.c, gsio_convert.c, gsio_load.c). */
#ifndef GSIO_CLI_H
#define GSIO_CLI_H

#include "gsio.h"

#include <stdbool.h>

/** Loads a file through gsio's importers; a file none of them claims, whose
 *  extension Assimp reads, goes through the Assimp adapter when it is built
 *  (else the error says it needs it). NULL with err set. */
gsio_scene *gsio_cli_load(const char *path, const gsio_opts *opts, gsio_error *err);
/** Loads standard input (gsio's importers only: the bytes say the format). */
gsio_scene *gsio_cli_load_stdin(const gsio_opts *opts, gsio_error *err);
/** Whether the Assimp adapter was built into this program. */
bool gsio_cli_have_assimp(void);

/** `gsio info`'s text for one loaded input (gsio_info_text.c): a summary,
 *  or with `verbose` every list whole. */
void gsio_info_print(const char *path, const gsio_scene *s, bool verbose);

/** `gsio convert`: argv after the verb. Returns the exit status. */
int gsio_cmd_convert(int argc, char **argv);

#endif
