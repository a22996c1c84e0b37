%% The Erlang side of the term zoo test (mote-dist/tests/erl_interop.rs).
%% Registered as `zoo`; builds the same zoo as the Rust test and compares with what the
%% test node sends, element by element.
-module(mote_zoo).
-export([start/0]).

start() ->
    register(zoo, self()),
    Ref = make_ref(),
    io:format("ready~n"),
    loop(Ref).

loop(Ref) ->
    receive
        {check, From, PeerPid, PeerRef, Got} ->
            Expected = zoo(PeerPid, PeerRef, Ref),
            Bad = mismatches(Expected, Got),
            [io:format("mismatch at ~p: expected ~P got ~P~n",
                       [I, element(I, Expected), 8, element(I, Got), 8]) || I <- Bad],
            From ! {checked, Bad},
            loop(Ref);
        {send_zoo, From, PeerPid, PeerRef} ->
            From ! {zoo, zoo(PeerPid, PeerRef, Ref)},
            loop(Ref);
        {send_funs, From} ->
            From ! {funs, fun lists:reverse/1, fun(X) -> X * 2 end},
            loop(Ref);
        {check_funs, From, Export, Local} ->
            From ! {funs_ok, Export([1, 2, 3]), Local(21)},
            loop(Ref);
        stop ->
            ok
    end.

mismatches(Expected, Got) when is_tuple(Got), tuple_size(Got) =:= tuple_size(Expected) ->
    [I || I <- lists:seq(1, tuple_size(Expected)), element(I, Expected) =/= element(I, Got)];
mismatches(_, Got) ->
    io:format("not a zoo: ~P~n", [Got, 10]),
    [0].

zoo(PeerPid, PeerRef, Ref) ->
    {ok, 'héllo', '日本語', '', list_to_atom(lists:duplicate(255, $a)),
     0, 255, 256, -1, 2147483647, -2147483648, 2147483648, -2147483649,
     9223372036854775807, -9223372036854775808, 18446744073709551615,
     18446744073709551616, 1 bsl 200, -(1 bsl 200),
     1.5, -2.5e-300, 1.0e300, 0.0,
     <<>>, <<1, 2, 3>>, <<1:3>>, <<"héllo"/utf8>>,
     "abc", "", [1000, 2000],
     [1, 2 | 3], [a | b],
     list_to_tuple(lists:seq(1, 300)),
     #{a => #{b => [1, 2]}, <<"k">> => {}, 1 => 2.5},
     self(), PeerPid, Ref, PeerRef, hd(erlang:ports()),
     lists:seq(1, 100000),
     binary:copy(<<7>>, 1048576)}.
