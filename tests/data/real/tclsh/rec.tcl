# Recursion in Tcl's C core: a comparator that sorts again (lsort -command),
# nested command substitution, and the string form of a nested list.
proc f {n} { if {$n <= 0} { return 0 }; return [expr {[f [expr {$n - 1}]] + 1}] }
proc cmp {n a b} { if {$n > 0} { lsort -command [list cmp [expr {$n - 1}]] {2 1} }; return [expr {$a - $b}] }
set s 1
for {set i 0} {$i < 25} {incr i} { set s "\[expr {$s + 1}\]" }
set l 0
for {set i 0} {$i < 30} {incr i} { set l [list $i [list $l]] }
puts [f 30]
puts [lsort -command [list cmp 6] {3 1 2}]
puts [eval "set x $s"]
puts [string length $l]
