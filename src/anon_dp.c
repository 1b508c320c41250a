/*
 * anon_dp.c -- the module's entry point: define the settings, register the
 * security label provider, watch label changes and the extension's catalog
 * entries, and install the hooks.  See doc/architecture.md for where
 * everything else lives.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include "catalog.h"
#include "bound/bound_users_node.h"
#include "guard/label_cache.h"
#include "guard/label_policy.h"
#include "hooks.h"
#include "settings.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	anon_dp_define_settings();
	anon_dp_register_label_provider();
	label_cache_init();
	anon_dp_catalog_init();
	bound_users_node_register();
	anon_dp_install_hooks(process_shared_preload_libraries_in_progress);
}
