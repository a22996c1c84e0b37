# Elixir peer of the mote-bench workloads (contract: docs/workloads.md).
#
#   elixir --erl "+P 5000000" peers/elixir/bench.exs W V k=v ...
#
# W is the workload, V its variant ("-" when it has none); params left out
# take the contract's full-size defaults. Exactly one RESULT line goes to
# stdout; everything else to stderr. Wrong answer: exit status 1; unknown
# workload/variant/param: exit status 2.
#
# Plain processes (spawn/send/receive) throughout, GenServer for `call`,
# Task.async + Task.await_many for `copy` par. All code lives in modules, so it
# is compiled, not interpreted by the script evaluator.
#
# Tuned variants (param tuned=1, default 0, printed after the contract's
# params). tuned=0 is the plain code a BEAM programmer writes first and is the
# one to compare; tuned=1 adds the one known fix for a known BEAM trap. Times
# below are from a 2-core shared test machine, to show the size of the effect:
#
#   spawn, million, workers: main collects K (or N) replies that pile up in
#     its mailbox. With the default on-heap message queue, each garbage
#     collection of main copies the queued backlog, so while main keeps
#     allocating (spawn: a closure per spawn) the run goes quadratic.
#     tuned=1 sets Process.flag(:message_queue_data, :off_heap) in main
#     before timing, so queued messages live outside main's heap.
#     spawn k=500000: 34 s plain, vs 2.2 s tuned at k=1000000 (plain 1M: ~2 min).
#     million k=1000000: no visible trap (7.6 s plain, 9.9 s tuned, one run
#     each), since the replies come in while main walks its pid list without
#     allocating, so main hardly collects garbage while they pile up.
#     workers master_slave n=50000: 150 ms plain, 126 ms tuned.
#   fanin: the single receiver's mailbox takes the backlog of S busy senders;
#     tuned=1 spawns the receiver with message_queue_data: :off_heap.
#     n=10000000: 5.4 s plain, 3.3 s tuned.

defmodule Bench.CallServer do
  use GenServer

  @impl true
  def init(:ok), do: {:ok, nil}

  @impl true
  def handle_call(i, _from, state), do: {:reply, i + 1, state}
end

defmodule Bench do
  import Bitwise

  @mask64 0xFFFF_FFFF_FFFF_FFFF

  # workload => {variants (nil: none), params in the contract's order with
  # their full-size defaults, then this peer's own tuned param where offered}
  @workloads %{
    "chain" => {["int", "list20"], [m: 10_000, n: 10_000]},
    "million" => {nil, [k: 1_000_000, tuned: 0]},
    "spawn" => {nil, [k: 1_000_000, tuned: 0]},
    "pingpong" => {nil, [r: 1_000_000]},
    "ring" => {nil, [t: 10_000_000, p: 503]},
    "skynet" => {nil, [l: 1_000_000]},
    "fanin" => {nil, [s: 100, n: 10_000_000, tuned: 0]},
    "call" => {nil, [r: 1_000_000]},
    "parsum" => {["serial", "spawn", "pool"], [r: 100_000, reps: 100]},
    "copy" => {["seq", "par"], [n: 1_000_000, r: 5]},
    "workers" => {["serial", "master_slave", "push", "steal"], [w: 2, n: 50_000, tuned: 0]}
  }

  # ---------------------------------------------------------------- driver

  def main([name, variant | kvs]) do
    {variants, defaults} =
      case Map.fetch(@workloads, name) do
        {:ok, spec} -> spec
        :error -> usage("unknown workload #{inspect(name)}")
      end

    cond do
      variants == nil and variant != "-" ->
        usage("workload #{name} has no variant; pass -, not #{inspect(variant)}")

      variants != nil and variant not in variants ->
        usage("unknown variant #{inspect(variant)} for #{name} (want one of #{Enum.join(variants, ", ")})")

      true ->
        :ok
    end

    params = Enum.reduce(kvs, defaults, &parse_param(&1, &2, name))
    p = Map.new(params)

    {wall, extras} = run(name, variant, p)

    line =
      ["RESULT bench=#{name} impl=elixir variant=#{variant}"] ++
        Enum.map(params, fn {k, v} -> "#{k}=#{v}" end) ++
        ["wall_ms=#{ms(wall)}"] ++ extras

    IO.puts(Enum.join(line, " "))
    System.halt(0)
  end

  def main(_), do: usage("need a workload and a variant")

  defp parse_param(kv, params, name) do
    with [k, v] <- String.split(kv, "=", parts: 2),
         key when key != nil <- known_key(params, k) do
      case Integer.parse(v) do
        {n, ""} when n >= 0 -> Keyword.replace!(params, key, n)
        _ -> usage("param #{k}=#{inspect(v)} is not a non-negative integer")
      end
    else
      nil -> usage("unknown param #{inspect(hd(String.split(kv, "=")))} for #{name}")
      _ -> usage("param #{inspect(kv)} is not k=v")
    end
  end

  defp known_key(params, k), do: Enum.find(Keyword.keys(params), &(Atom.to_string(&1) == k))

  defp usage(msg) do
    IO.puts(:stderr, "bench.exs: " <> msg)
    IO.puts(:stderr, "usage: elixir bench.exs WORKLOAD VARIANT|- [k=v ...]")
    System.halt(2)
  end

  defp fail(msg) do
    IO.puts(:stderr, "ERROR " <> msg)
    System.halt(1)
  end

  defp now, do: System.monotonic_time()

  defp ms(native) do
    ns = System.convert_time_unit(native, :native, :nanosecond)
    :erlang.float_to_binary(ns / 1.0e6, decimals: 3)
  end

  defp tune(%{tuned: 1}), do: Process.flag(:message_queue_data, :off_heap)
  defp tune(_), do: :ok

  # ------------------------------------------------------ shared definitions

  # xorshift64*: returns {value, new_state}
  def next(s) do
    s = bxor(s, s >>> 12)
    s = bxor(s, s <<< 25 &&& @mask64)
    s = bxor(s, s >>> 27)
    {s * 0x2545F4914F6CDD1D &&& @mask64, s}
  end

  # uniform(lo..=hi): returns {value, new_state}
  def uniform(lo, hi, s) do
    {x, s} = next(s)
    {lo + rem(x >>> 33, hi - lo + 1), s}
  end

  # n ints uniform in 1..=1000, seed 42, as a list in generation order
  def random_ints(n), do: random_ints(n, 42, [])
  defp random_ints(0, _s, acc), do: :lists.reverse(acc)

  defp random_ints(n, s, acc) do
    {x, s} = uniform(1, 1000, s)
    random_ints(n - 1, s, [x | acc])
  end

  # prime factor count with multiplicity
  def count(n), do: count(n, 2, 0)
  defp count(n, _d, c) when n <= 1, do: c
  defp count(n, d, c) when d * d > n, do: c + 1
  defp count(n, d, c) when rem(n, d) == 0, do: count(div(n, d), d, c + 1)
  defp count(n, d, c), do: count(n, d + 1, c)

  # receive `n` messages, summing them
  defp collect_sum(0, acc), do: acc

  defp collect_sum(n, acc) do
    receive do
      x -> collect_sum(n - 1, acc + x)
    end
  end

  # ------------------------------------------------------------- workloads

  # chain: M relays; main sends N messages to the head, the last relay sends
  # them back to main.
  def run("chain", variant, %{m: m, n: n}) do
    list = Enum.to_list(1..20)
    t0 = now()
    head = Enum.reduce(1..m//1, self(), fn _, next -> spawn(fn -> relay(next) end) end)

    case variant do
      "int" ->
        Enum.each(0..(n - 1)//1, &send(head, &1))
        sum = collect_sum(n, 0)
        wall = now() - t0
        want = div(n * (n - 1), 2)
        if sum != want, do: fail("chain int: sum #{sum}, want #{want}")
        {wall, []}

      "list20" ->
        Enum.each(1..n//1, fn _ -> send(head, list) end)
        bad = collect_lists(n, 0)
        wall = now() - t0
        if bad != 0, do: fail("chain list20: #{bad} of #{n} lists do not sum to 210")
        {wall, []}
    end
  end

  # million: spawn K processes blocked in receive, then wake each; each
  # replies :done and ends.
  def run("million", _, %{k: k} = p) do
    tune(p)
    main = self()
    t0 = now()

    pids =
      for _ <- 1..k//1 do
        spawn(fn ->
          receive do
            :go -> send(main, :done)
          end
        end)
      end

    t1 = now()
    Enum.each(pids, &send(&1, :go))
    got = collect_done(k, 0)
    wall = now() - t0
    if got != k, do: fail("million: #{got} replies, want #{k}")
    {wall, ["spawn_ms=#{ms(t1 - t0)}"]}
  end

  # spawn: K short-lived processes, each sends :done to main and ends.
  def run("spawn", _, %{k: k} = p) do
    tune(p)
    t0 = now()
    spawn_done(k, self())
    got = collect_done(k, 0)
    wall = now() - t0
    if got != k, do: fail("spawn: #{got} replies, want #{k}")
    {wall, []}
  end

  # pingpong: A (which starts B) sends i to B, B replies i; R round trips.
  def run("pingpong", _, %{r: r}) do
    main = self()
    t0 = now()

    spawn(fn ->
      a = self()
      b = spawn(fn -> pong(a) end)
      {trips, bad} = ping(b, 0, r, 0)
      send(b, :stop)
      send(main, {:pingpong, trips, bad})
    end)

    receive do
      {:pingpong, trips, bad} ->
        wall = now() - t0
        if trips != r or bad != 0, do: fail("pingpong: #{trips} trips, #{bad} wrong replies, want #{r}")
        {wall, []}
    end
  end

  # ring: P processes, process j forwards the token (minus one) to j+1 mod P.
  def run("ring", _, %{t: t, p: np}) do
    if np < 1, do: usage("ring needs p >= 1")
    main = self()
    t0 = now()
    pids = for j <- 0..(np - 1)//1, do: spawn(fn -> ring_init(j, main) end)
    Enum.zip(pids, tl(pids) ++ [hd(pids)]) |> Enum.each(fn {pid, next} -> send(pid, {:next, next}) end)
    send(hd(pids), t)

    receive do
      {:ring, idx} ->
        wall = now() - t0
        if idx != rem(t, np), do: fail("ring: process #{idx} got 0, want #{rem(t, np)}")
        {wall, []}
    end
  end

  # skynet: fan-out 10 tree, leaves reply their offset, nodes reply the sum.
  def run("skynet", _, %{l: l}) do
    unless power_of_10?(l), do: usage("skynet: l=#{l} is not a power of 10")
    main = self()
    t0 = now()
    spawn(fn -> skynet(main, 0, l) end)

    receive do
      sum ->
        wall = now() - t0
        want = div(l * (l - 1), 2)
        if sum != want, do: fail("skynet: sum #{sum}, want #{want}")
        {wall, []}
    end
  end

  # fanin: S senders each send N/S ones to one receiver, which counts to N.
  def run("fanin", _, %{s: s, n: n} = p) do
    if s < 1 or rem(n, s) != 0, do: usage("fanin: n=#{n} must be a multiple of s=#{s} >= 1")
    main = self()
    opts = if p.tuned == 1, do: [message_queue_data: :off_heap], else: []
    t0 = now()
    recv = :erlang.spawn_opt(fn -> fanin_recv(n, 0, 0, main) end, opts)
    per = div(n, s)
    Enum.each(1..s//1, fn _ -> spawn(fn -> fanin_send(recv, per) end) end)

    receive do
      {:fanin, count, sum} ->
        wall = now() - t0
        if count != n or sum != n, do: fail("fanin: count #{count} sum #{sum}, want #{n}")
        {wall, []}
    end
  end

  # call: a GenServer; a client process makes R GenServer.call(i) -> i + 1.
  def run("call", _, %{r: r}) do
    main = self()
    t0 = now()
    {:ok, server} = GenServer.start(Bench.CallServer, :ok)

    spawn(fn ->
      {trips, bad} = call_loop(server, 0, r, 0)
      send(main, {:call, trips, bad})
    end)

    receive do
      {:call, trips, bad} ->
        wall = now() - t0
        if trips != r or bad != 0, do: fail("call: #{trips} calls, #{bad} wrong replies, want #{r}")
        {wall, []}
    end
  end

  # parsum: sum R ints in chunks of 100, REPS times; serial / spawn / pool.
  def run("parsum", variant, %{r: r, reps: reps}) do
    data = random_ints(r)
    want = Enum.sum(data)
    chunks = Enum.chunk_every(data, 100)
    nchunks = length(chunks)
    main = self()

    {wall, sums} =
      case variant do
        "serial" ->
          t0 = now()
          sums = for _ <- 1..reps//1, do: Enum.sum(data)
          {now() - t0, sums}

        "spawn" ->
          t0 = now()

          sums =
            for _ <- 1..reps//1 do
              Enum.each(chunks, fn c -> spawn(fn -> send(main, {:psum, Enum.sum(c)}) end) end)
              collect_psums(nchunks, 0)
            end

          {now() - t0, sums}

        "pool" ->
          pool = for c <- chunks, do: spawn(fn -> pool_worker(c, main) end)
          t0 = now()

          sums =
            for _ <- 1..reps//1 do
              Enum.each(pool, &send(&1, :go))
              collect_psums(nchunks, 0)
            end

          wall = now() - t0
          Enum.each(pool, &send(&1, :stop))
          {wall, sums}
      end

    Enum.with_index(sums)
    |> Enum.each(fn {s, i} ->
      if s != want, do: fail("parsum #{variant}: rep #{i} sum #{s}, want #{want}")
    end)

    {wall, []}
  end

  # copy: uniq, frequencies and a shuffle of N ints, R times; seq / par.
  def run("copy", variant, %{n: n, r: r}) do
    data = random_ints(n)
    want = Enum.sum(data)
    t0 = now()

    facts =
      for _ <- 1..r//1 do
        case variant do
          "seq" ->
            u = Enum.uniq(data)
            f = Enum.frequencies(data)
            s = shuffle(data)
            copy_facts(u, f, s)

          "par" ->
            # Each closure captures `data`, so Task.async copies the whole
            # list into each task's heap, and the results are copied back.
            tasks = [
              Task.async(fn -> Enum.uniq(data) end),
              Task.async(fn -> Enum.frequencies(data) end),
              Task.async(fn -> shuffle(data) end)
            ]

            [u, f, s] = Task.await_many(tasks, :infinity)
            copy_facts(u, f, s)
        end
      end

    wall = now() - t0

    Enum.with_index(facts)
    |> Enum.each(fn {{nu, ftotal, slen, ssum}, i} ->
      if n >= 100_000 and nu != 1000, do: fail("copy #{variant}: rep #{i} uniq count #{nu}, want 1000")
      if ftotal != n, do: fail("copy #{variant}: rep #{i} frequencies sum to #{ftotal}, want #{n}")

      if slen != n or ssum != want,
        do: fail("copy #{variant}: rep #{i} shuffle length #{slen} sum #{ssum}, want #{n} and #{want}")
    end)

    {wall, []}
  end

  # workers: sum of count(i) for i in 1..=N; serial / master_slave / push /
  # steal. All unbatched: one message per item.
  def run("workers", variant, %{w: w, n: n} = p) do
    if w < 1, do: usage("workers needs w >= 1")
    want = serial_counts(1, n, 0)
    tune(p)
    main = self()

    {wall, got} =
      case variant do
        "serial" ->
          t0 = now()
          got = serial_counts(1, n, 0)
          {now() - t0, got}

        "master_slave" ->
          t0 = now()
          Enum.each(1..n//1, fn i -> spawn(fn -> send(main, {:count, count(i)}) end) end)
          got = collect_counts(n, 0)
          {now() - t0, got}

        "push" ->
          workers = List.to_tuple(for _ <- 1..w, do: spawn(fn -> push_worker(main) end))
          t0 = now()
          push_items(1, n, workers, w)
          got = collect_counts(n, 0)
          wall = now() - t0
          Enum.each(Tuple.to_list(workers), &send(&1, :stop))
          {wall, got}

        "steal" ->
          # Workers ask as soon as they start: their first requests may
          # already wait in main's mailbox when timing starts.
          workers = for _ <- 1..w, do: spawn(fn -> steal_worker(main) end)
          t0 = now()
          got = steal_master(1, n, 0, 0)
          wall = now() - t0
          Enum.each(workers, &send(&1, :stop))
          {wall, got}
      end

    if got != want, do: fail("workers #{variant}: sum #{got}, want #{want}")
    {wall, []}
  end

  # ----------------------------------------------------- process bodies etc.

  def relay(next) do
    receive do
      msg ->
        send(next, msg)
        relay(next)
    end
  end

  defp collect_lists(0, bad), do: bad

  defp collect_lists(n, bad) do
    receive do
      list -> collect_lists(n - 1, if(Enum.sum(list) == 210, do: bad, else: bad + 1))
    end
  end

  defp collect_done(k, got) when got == k, do: got

  defp collect_done(k, got) do
    receive do
      :done -> collect_done(k, got + 1)
    end
  end

  defp spawn_done(0, _main), do: :ok

  defp spawn_done(k, main) do
    spawn(fn -> send(main, :done) end)
    spawn_done(k - 1, main)
  end

  defp pong(a) do
    receive do
      :stop ->
        :ok

      i ->
        send(a, i)
        pong(a)
    end
  end

  defp ping(_b, r, r, bad), do: {r, bad}

  defp ping(b, i, r, bad) do
    send(b, i)

    receive do
      ^i -> ping(b, i + 1, r, bad)
      _ -> ping(b, i + 1, r, bad + 1)
    end
  end

  defp ring_init(j, main) do
    receive do
      {:next, next} -> ring_loop(j, next, main)
    end
  end

  defp ring_loop(j, next, main) do
    receive do
      0 ->
        send(main, {:ring, j})

      v ->
        send(next, v - 1)
        ring_loop(j, next, main)
    end
  end

  defp power_of_10?(1), do: true
  defp power_of_10?(x) when x >= 10 and rem(x, 10) == 0, do: power_of_10?(div(x, 10))
  defp power_of_10?(_), do: false

  defp skynet(parent, off, 1), do: send(parent, off)

  defp skynet(parent, off, size) do
    me = self()
    sub = div(size, 10)
    Enum.each(0..9, fn i -> spawn(fn -> skynet(me, off + i * sub, sub) end) end)
    send(parent, collect_sum(10, 0))
  end

  defp fanin_recv(n, count, sum, main) when count == n, do: send(main, {:fanin, count, sum})

  defp fanin_recv(n, count, sum, main) do
    receive do
      x -> fanin_recv(n, count + 1, sum + x, main)
    end
  end

  defp fanin_send(_recv, 0), do: :ok

  defp fanin_send(recv, k) do
    send(recv, 1)
    fanin_send(recv, k - 1)
  end

  defp call_loop(_server, r, r, bad), do: {r, bad}

  defp call_loop(server, i, r, bad) do
    bad = if GenServer.call(server, i) == i + 1, do: bad, else: bad + 1
    call_loop(server, i + 1, r, bad)
  end

  defp collect_psums(0, acc), do: acc

  defp collect_psums(k, acc) do
    receive do
      {:psum, s} -> collect_psums(k - 1, acc + s)
    end
  end

  defp pool_worker(chunk, main) do
    receive do
      :go ->
        send(main, {:psum, Enum.sum(chunk)})
        pool_worker(chunk, main)

      :stop ->
        :ok
    end
  end

  # Fisher-Yates on an :array (O(log n) get/set), driven by a fresh
  # xorshift64* seeded with 7: for i from n-1 down to 1, swap i with
  # j = uniform(0..=i).
  def shuffle(list) do
    arr = :array.from_list(list)
    :array.to_list(fisher_yates(arr, :array.size(arr) - 1, 7))
  end

  defp fisher_yates(arr, i, _s) when i <= 0, do: arr

  defp fisher_yates(arr, i, s) do
    {j, s} = uniform(0, i, s)
    vi = :array.get(i, arr)
    vj = :array.get(j, arr)
    arr = :array.set(j, vi, :array.set(i, vj, arr))
    fisher_yates(arr, i - 1, s)
  end

  defp copy_facts(u, f, s), do: {length(u), f |> Map.values() |> Enum.sum(), length(s), Enum.sum(s)}

  defp serial_counts(i, n, acc) when i > n, do: acc
  defp serial_counts(i, n, acc), do: serial_counts(i + 1, n, acc + count(i))

  defp collect_counts(0, acc), do: acc

  defp collect_counts(k, acc) do
    receive do
      {:count, c} -> collect_counts(k - 1, acc + c)
    end
  end

  defp push_worker(main) do
    receive do
      {:item, i} ->
        send(main, {:count, count(i)})
        push_worker(main)

      :stop ->
        :ok
    end
  end

  defp push_items(i, n, _workers, _w) when i > n, do: :ok

  defp push_items(i, n, workers, w) do
    send(elem(workers, rem(i - 1, w)), {:item, i})
    push_items(i + 1, n, workers, w)
  end

  # An idle worker asks the master for work, computes, sends the count, asks
  # again.
  defp steal_worker(main) do
    send(main, {:want, self()})

    receive do
      {:item, i} ->
        send(main, {:count, count(i)})
        steal_worker(main)

      :stop ->
        :ok
    end
  end

  # The master hands out items 1..n on request and sums the counts; it is
  # done when all n counts are in. Requests that come after the last item
  # stay queued; the workers are stopped afterwards.
  defp steal_master(_next, n, got, acc) when got == n, do: acc

  defp steal_master(next, n, got, acc) do
    receive do
      {:want, pid} when next <= n ->
        send(pid, {:item, next})
        steal_master(next + 1, n, got, acc)

      {:count, c} ->
        steal_master(next, n, got + 1, acc + c)
    end
  end
end

Bench.main(System.argv())
