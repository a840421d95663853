# Recursion inside perl's C code: a sort block that calls the sub that sorts
# (runops and pp_sort re-entered), a string eval of a deeply nested
# expression, and a nested structure freed at exit.
sub f { my $n = shift; return 0 if $n <= 0;
        my @s = sort { f($n - 1); $a <=> $b } (2, 1); return $s[0] + 1 }
my $e = "1"; $e = "($e+1)" for 1 .. 40;
my $v = eval $e;
my $r = 1; $r = [$r, { k => $r }] for 1 .. 12;
print f(8), " $v\n";
