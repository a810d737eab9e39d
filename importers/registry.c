/* The importer registry: detection by magic first, extension second. */
#include "gsio_internal.h"
#include "gsio_hmp.h"
#include "gsio_md5.h"
#include "gsio_mdl.h"
#include "gsio_wmp.h"

#include <stdlib.h>

static const gsio_importer *const importers[] = {
    &gsio_mdl_importer,
    &gsio_hmp_importer,
    &gsio_md5_importer,
    &gsio_wmp_importer,
    NULL,
};

const gsio_importer *const *gsio_importers(void)
{
	return importers;
}

const gsio_importer *gsio_find_importer(const uint8_t *head, size_t head_size, const char *path)
{
	char ext[16];
	gsioi_path_ext(path, ext, sizeof(ext));
	const gsio_importer *by_ext = NULL;
	for (size_t i = 0; importers[i]; i++) {
		int score = importers[i]->can_read(head, head_size, ext);
		if (score == 2) return importers[i];
		if (score == 1 && !by_ext) by_ext = importers[i];
	}
	return by_ext;
}

gsio_scene *gsio_load_memory(const uint8_t *data, size_t size, const char *path,
                             const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	const gsio_importer *imp = gsio_find_importer(data, size, path);
	if (!imp) {
		GSIO_FAIL(err, GSIO_ERR_BAD_MAGIC, path, 0,
		          "unknown format: neither the first bytes nor the extension match a format "
		          "gsio reads");
		return NULL;
	}
	return imp->read(data, size, path, opts, err);
}

gsio_scene *gsio_load_file(const char *path, const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	uint8_t *data;
	size_t size;
	// Through opts->io (or the default io: regular files only, so a FIFO or a
	// device named like a model fails at once instead of blocking).
	if (gsioi_io_read(opts, path, &data, &size, err)) return NULL;
	gsio_scene *s = gsio_load_memory(data, size, path, opts, err);
	gsioi_io_free(opts, data);
	return s;
}
