// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events in dynamic_events: "u:NAME FIELDS" creates a persistent
 * event of the global group, "-:NAME [FIELDS]" deletes one, and every
 * user event is listed.
 */
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_events_user_core.h"

static struct user_event *to_user_event(struct dyn_event *ev)
{
	return container_of(ev, struct user_event, devent);
}

/* "u:name fields" creates a persistent event of the global group */
static int user_event_dyn_create(const char *raw_command)
{
	struct user_event_format *fmt;
	struct user_parse_err perr;
	const char *cmd = skip_spaces(raw_command);
	struct user_event *ue;
	bool created;
	int pos, ret;

	if (!str_has_prefix(cmd, USER_EVENTS_PREFIX))
		return -ECANCELED;
	pos = cmd - raw_command + strlen(USER_EVENTS_PREFIX);

	ret = user_event_parse(raw_command + pos, &fmt, &perr);
	if (ret) {
		if (ret == -EINVAL)
			user_event_log(raw_command, perr.type, pos + perr.pos);
		return ret;
	}

	if (!perfmon_capable()) {
		user_event_log(raw_command, USER_EVENT_ERR_NOT_PERMITTED, 0);
		user_event_format_free(fmt);
		return -EPERM;
	}

	/* An old event of the name may still be held by an mm that went */
	user_event_mm_flush(&user_event_global.gone);
	ue = user_event_get(&user_event_global, fmt, false, raw_command, pos,
			    &created);
	if (IS_ERR(ue))
		return PTR_ERR(ue);

	/*
	 * An event that existed with the same fields stays as it is, as for
	 * DIAG_IOCSREG with PERSIST: a registered one still goes with its
	 * last reference.
	 */
	mutex_lock(&event_mutex);
	if (created)
		ue->persist = true;
	user_event_put_locked(ue);
	mutex_unlock(&event_mutex);
	return 0;
}

static int user_event_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);
	int len = user_event_format_fields_text(ue->fmt, NULL, 0);
	char *text;

	/* Only the global group's single-format events go without system */
	if (ue->multi || ue->group != &user_event_global)
		seq_printf(m, "%s%s/%s", USER_EVENTS_PREFIX, ue->class.system,
			   ue->tp.name);
	else
		seq_printf(m, "%s%s", USER_EVENTS_PREFIX, ue->tp.name);
	if (len) {
		text = kmalloc(len + 1, GFP_KERNEL);
		if (!text)
			return -ENOMEM;
		user_event_format_fields_text(ue->fmt, text, len + 1);
		seq_printf(m, " %s", text);
		kfree(text);
	}
	seq_putc(m, '\n');
	return 0;
}

static bool user_event_dyn_is_busy(struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);

	return refcount_read(&ue->refs) || ue->status ||
	       trace_event_dyn_busy(&ue->call);
}

static int user_event_dyn_free(struct dyn_event *ev)
{
	/* A command of dynamic_events: its error goes where it was written */
	return user_event_delete(to_user_event(ev), &user_event_global);
}

/*
 * "-:name [fields]": the fields must match, compared one by one as
 * registering compares them; a bare "-:name" has none
 */
static bool user_event_dyn_match(const char *system, const char *event,
				 int argc, const char **argv,
				 struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);

	/* "-:name" without system is of the global group only */
	if (system ? strcmp(system, ue->class.system) :
		     ue->group != &user_event_global)
		return false;
	if (strcmp(event, ue->tp.name))
		return false;
	return user_event_format_match_args(ue->fmt, argc, argv);
}

struct dyn_event_operations user_event_dyn_ops = {
	.create		= user_event_dyn_create,
	.show		= user_event_dyn_show,
	.is_busy	= user_event_dyn_is_busy,
	.free		= user_event_dyn_free,
	.match		= user_event_dyn_match,
};
