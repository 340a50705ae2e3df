#!/usr/bin/env node
// Committed launcher: npm links workspace bins at install time, before the
// build has produced dist/, so the bin must be a file that exists in a clone.
import '../dist/main.js';
