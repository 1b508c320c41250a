/*
 * label_names.h -- the names of the anon_dp security label provider and of
 * its labels (what each means: labels.h).
 */
#ifndef ANON_DP_LABEL_NAMES_H
#define ANON_DP_LABEL_NAMES_H

#define ANON_DP_LABEL_PROVIDER "anon_dp"
#define ANON_DP_LABEL_PRIVACY_UNIT "privacy_unit"
#define ANON_DP_LABEL_PUBLIC "public"
#define ANON_DP_LABEL_ANONYMIZED "anonymized"
#define ANON_DP_LABEL_TRUSTED "trusted"

#endif							/* ANON_DP_LABEL_NAMES_H */
