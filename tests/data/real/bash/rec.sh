# Recursion inside bash: mutually recursive shell functions, a function that
# recurses through eval, and a deeply parenthesised arithmetic expression.
# No command substitution: a forked child would go on under valgrind.
f() { if [ "$1" -le 0 ]; then return 0; fi; local n=$(( $1 - 1 )); g "$n"; }
g() { if [ "$1" -le 0 ]; then return 0; fi; local n=$(( $1 - 1 )); f "$n"; }
h() { if [ "$1" -le 0 ]; then return 0; fi; eval "h $(( $1 - 1 ))"; }
f 24
h 12
x=$(( (((((((((((((((((((1-2)+3)*4)-5)+6)*7)-8)+9)*10)-11)+12)*13)-14)+15)*16)-17)+18)*19)-20) ))
echo "$x"
