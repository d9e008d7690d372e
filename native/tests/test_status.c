/*
 * test_status.c - fastrmi_strstatus names every status of enum fastrmi_status by its own
 * enumerator (taken from the header by the preprocessor, not retyped), and never returns NULL.
 */
#include <string.h>

#include "check.h"
#include "fastrmi.h"

#define STATUS(code) { code, #code }

static const struct {
	int code;
	const char *name;
} statuses[] = {
	STATUS(FASTRMI_OK),	       STATUS(FASTRMI_ERR_TIMEOUT),  STATUS(FASTRMI_ERR_ABORTED),
	STATUS(FASTRMI_ERR_CLOSED),    STATUS(FASTRMI_ERR_INVALID),  STATUS(FASTRMI_ERR_NOMEM),
	STATUS(FASTRMI_ERR_PROVIDER),  STATUS(FASTRMI_ERR_PROTOCOL), STATUS(FASTRMI_ERR_NOT_FOUND),
	STATUS(FASTRMI_ERR_RESET),     STATUS(FASTRMI_ERR_FULL),
};

int main(void)
{
	const size_t count = sizeof(statuses) / sizeof(statuses[0]);
	const int not_statuses[] = { 1, -11, -1000, 0x7fffffff, (int)0x80000000 };
	char name[64];
	size_t i;

	for (i = 0; i < count; i++) {
		const char *got = fastrmi_strstatus(statuses[i].code);

		snprintf(name, sizeof(name), "fastrmi_strstatus(%d) is %s", statuses[i].code, statuses[i].name);
		CHECK(name, got != NULL && strcmp(got, statuses[i].name) == 0, "got %s", got ? got : "NULL");
	}
	/* The statuses are the consecutive codes 0 down to the last one: a new status added to the
	 * enum without a name here would show up as a gap or an unknown name. */
	CHECK("the statuses are 0 down to the last one, without gaps",
	      statuses[count - 1].code == -(int)(count - 1), "last is %d, %zu statuses",
	      statuses[count - 1].code, count);
	CHECK("the code after the last one is not a status",
	      strcmp(fastrmi_strstatus(statuses[count - 1].code - 1), "FASTRMI_UNKNOWN_STATUS") == 0,
	      "got %s", fastrmi_strstatus(statuses[count - 1].code - 1));
	for (i = 0; i < sizeof(not_statuses) / sizeof(not_statuses[0]); i++) {
		const char *got = fastrmi_strstatus(not_statuses[i]);

		snprintf(name, sizeof(name), "fastrmi_strstatus(%d) is unknown", not_statuses[i]);
		CHECK(name, got != NULL && strcmp(got, "FASTRMI_UNKNOWN_STATUS") == 0, "got %s", got ? got : "NULL");
	}
	return check_summary();
}
