# SPDX-License-Identifier: Apache-2.0
# median(list): the median of the numbers in a space-separated list (the mean of the middle
# two when their count is even). The bench scripts' summaries: awk "$(<scripts/median.awk)"'...'
function median(list,   n, a, i, j, t) {
  n = split(list, a, " ")
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
