# Elixir peer of the mote-bench workloads (contract: docs/workloads.md).
#
#   elixir --erl "+P 2000000" peers/elixir/bench.exs W V k=v ...
#
# W is the workload, V its variant ("-" when it has none), and every one of the
# workload's params is given as k=v (the sizes live in the harness's catalog,
# `mote-bench list`, which passes them all). Options follow the params:
# "threads=N" (every workload: the schedulers online, at most the ones this
# BEAM started, one per core) and a workload's own (pingpong's "pairs=P",
# call's "callers=K", listed by its options/0). Exactly one RESULT line goes to stdout; everything
# else to stderr. Wrong answer: exit status 1; unknown workload/variant/param,
# a missing param or an option out of range: exit status 2.
#
# This file is the driver: it loads shared.exs and the workload's own file,
# W.exs beside it, which defines the module Bench.<W> with variants/0 (nil:
# none), params/0 (the params in RESULT-line order; nil: required, a number:
# the default of a param of this peer's own, printed after the contract's) and
# run(variant, params) -> {wall_native_time, extra_figures}. Only those two
# files are compiled, so start-up stays short. All code lives in modules, so it
# is compiled, not interpreted by the script evaluator.

Code.require_file("shared.exs", __DIR__)

defmodule Bench do
  import Bench.Shared

  def main([name, variant | kvs]) do
    mod = load(name)
    variants = mod.variants()

    cond do
      variants == nil and variant != "-" ->
        usage("workload #{name} has no variant; pass -, not #{inspect(variant)}")

      variants != nil and variant not in variants ->
        usage(
          "unknown variant #{inspect(variant)} for #{name} (want one of #{Enum.join(variants, ", ")})"
        )

      true ->
        :ok
    end

    option_names = ["threads" | Enum.map(options(mod), &Atom.to_string/1)]
    {option_kvs, param_kvs} = Enum.split_with(kvs, &(option_name(&1) in option_names))
    params = Enum.reduce(param_kvs, mod.params(), &parse_param(&1, &2, name))
    given = Enum.map(option_kvs, &parse_option/1)

    case Enum.find(params, fn {_, v} -> v == nil end) do
      {k, nil} -> usage("#{name} needs every param (#{names(mod.params())}): #{k} is missing")
      nil -> :ok
    end

    case List.keyfind(given, :threads, 0) do
      {:threads, n} -> schedulers_online(n)
      nil -> :ok
    end

    {wall, extras} = mod.run(variant, Map.new(params ++ given))

    line =
      ["RESULT bench=#{name} impl=elixir variant=#{variant}"] ++
        Enum.map(params ++ given, fn {k, v} -> "#{k}=#{v}" end) ++
        ["wall_ms=#{ms(wall)}"] ++ extras

    IO.puts(Enum.join(line, " "))
    System.halt(0)
  end

  def main(_), do: usage("need a workload and a variant")

  # The workload's module, from W.exs beside this file.
  defp load(name) do
    file = Path.join(__DIR__, name <> ".exs")

    if not Regex.match?(~r/^[a-z][a-z0-9_]*$/, name) or name in ["bench", "shared"] or
         not File.regular?(file) do
      usage("unknown workload #{inspect(name)}")
    end

    Code.require_file(file)
    Module.concat(Bench, Macro.camelize(name))
  end

  defp names(params), do: params |> Keyword.keys() |> Enum.join(", ")

  # The workload's own options (atoms), if it has any.
  defp options(mod) do
    if function_exported?(mod, :options, 0), do: mod.options(), else: []
  end

  defp option_name(kv), do: kv |> String.split("=", parts: 2) |> hd()

  # An option's value is a positive integer.
  defp parse_option(kv) do
    [k, v] = String.split(kv, "=", parts: 2)

    case Integer.parse(v) do
      {n, ""} when n > 0 -> {String.to_atom(k), n}
      _ -> usage("option #{k}=#{inspect(v)} is not a positive integer")
    end
  end

  # `threads`, as Go's GOMAXPROCS: how many schedulers run Erlang code at once. The
  # BEAM starts one scheduler per core and can take fewer online, not more (more would
  # need `+S` when the BEAM starts).
  defp schedulers_online(n) do
    started = :erlang.system_info(:schedulers)

    if n > started,
      do: usage("threads=#{n} is more than the #{started} schedulers this BEAM started (one per core)")

    :erlang.system_flag(:schedulers_online, n)
  end

  defp parse_param(kv, params, name) do
    with [k, v] <- String.split(kv, "=", parts: 2),
         key when key != nil <- known_key(params, k) do
      case Integer.parse(v) do
        {n, ""} when n >= 0 -> Keyword.replace!(params, key, n)
        _ -> usage("param #{k}=#{inspect(v)} is not a non-negative integer")
      end
    else
      nil ->
        usage(
          "unknown param #{inspect(hd(String.split(kv, "=")))} for #{name} (params: #{names(params)})"
        )

      _ ->
        usage("param #{inspect(kv)} is not k=v")
    end
  end

  defp known_key(params, k), do: Enum.find(Keyword.keys(params), &(Atom.to_string(&1) == k))
end

Bench.main(System.argv())
