-- anon_dp 1.0 -> 1.1 (development version: this script may change until 1.1 is released)
\echo Use "ALTER EXTENSION anon_dp UPDATE TO '1.1'" to load this file. \quit
