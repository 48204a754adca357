//! The wrapper entry that runs a test's kernels as many instances per launch.

use super::*;

/// The wrapper entry `litmus(locs, scratch, smids, sync, hist, sink, iterations, per_role,
/// layout, stress, stress_mask)` around the test's kernels (made `.func`s): see the module
/// documentation. `per_role` blocks run each thread of the test; with `layout` 0, block `b`
/// runs thread `b % threads` of slot `b / threads` (neighbouring blocks pair up), with 1 thread
/// `b / per_role` of slot `b % per_role` (blocks half a grid apart pair up): which of the two
/// puts the threads of an instance on different SMs more often depends on the block scheduler,
/// and `%smid` tells. Blocks beyond `threads × per_role` stress the memory system: they read and
/// write words of `stress` (`stress_mask + 1` words, a power of two) all along.
pub fn wrapper(test: &Litmus) -> String {
    let mut o = String::new();
    write_entry(&mut o, test);
    write_iteration_start(&mut o, test);
    write_roles(&mut o, test);
    write_count(&mut o, test);
    write_stress(&mut o);
    o
}

/// The entry's parameters and registers; which role and instance this thread runs, its SM
/// recorded, and where its instance's results go (%ld7).
fn write_entry(o: &mut String, test: &Litmus) {
    let roles = test.threads.len();
    let _ = writeln!(o, ".visible .entry litmus(");
    for p in ["locs", "scratch", "smids", "sync", "hist", "sink"] {
        let _ = writeln!(o, "\t.param .u64 p_{p},");
    }
    o.push_str(
        "\t.param .u32 p_iters,\n\t.param .u32 p_per_role,\n\t.param .u32 p_layout,\n\
         \t.param .u64 p_stress,\n\t.param .u32 p_stress_mask\n)\n{\n",
    );
    o.push_str(
        "\t.reg .b64 %ld<16>;\n\t.reg .b64 %la<8>;\n\t.reg .b32 %lr<40>;\n\t.reg .pred %lp<8>;\n",
    );
    // %ld0 locs, %ld1 scratch, %ld2 smids, %ld3 sync, %ld4 hist, %ld5 sink, %ld14 stress,
    // %lr0 iterations, %lr5 blocks per thread, %lr22 layout, %lr23 stress mask.
    for (i, p) in ["locs", "scratch", "smids", "sync", "hist", "sink"]
        .iter()
        .enumerate()
    {
        let _ = writeln!(o, "\tld.param.u64 %ld{i}, [p_{p}];");
    }
    o.push_str(
        "\tld.param.u32 %lr0, [p_iters];\n\tld.param.u32 %lr5, [p_per_role];\n\
         \tld.param.u32 %lr22, [p_layout];\n\tld.param.u64 %ld14, [p_stress];\n\
         \tld.param.u32 %lr23, [p_stress_mask];\n",
    );
    let _ = writeln!(
        o,
        "\tmov.u32 %lr1, %ctaid.x;\n\tmov.u32 %lr3, %tid.x;\n\tmov.u32 %lr4, %ntid.x;\n\
         \tmul.lo.u32 %lr2, %lr5, {roles};\n\tsetp.ge.u32 %lp0, %lr1, %lr2;\n\t@%lp0 bra STRESS;\n\
         \tsetp.eq.u32 %lp0, %lr22, 0;\n\t@%lp0 rem.u32 %lr6, %lr1, {roles};\n\
         \t@%lp0 div.u32 %lr7, %lr1, {roles};\n\t@!%lp0 div.u32 %lr6, %lr1, %lr5;\n\
         \t@!%lp0 rem.u32 %lr7, %lr1, %lr5;\n\tmad.lo.u32 %lr8, %lr7, %lr4, %lr3;\n\
         \tmul.lo.u32 %lr9, %lr5, %lr4;"
    );
    // %lr6 role, %lr8 instance, %lr9 instances; record this thread's SM.
    let _ = writeln!(
        o,
        "\tmov.u32 %lr10, %smid;\n\tmad.lo.u32 %lr11, %lr8, {roles}, %lr6;\n\
         \tmul.wide.u32 %ld6, %lr11, 4;\n\tadd.u64 %ld6, %ld2, %ld6;\n\tst.global.u32 [%ld6], %lr10;\n\
         \tmul.lo.u32 %lr15, %lr0, %lr9;\n\tmov.u32 %lr12, 0;\n\tmov.u32 %lr13, 0;"
    );
    // Scratch results of this instance: %ld7.
    let _ = writeln!(
        o,
        "\tmul.lo.u32 %lr11, %lr8, {};\n\tmul.wide.u32 %ld7, %lr11, 4;\n\tadd.u64 %ld7, %ld1, %ld7;",
        test.results.max(1)
    );
}

/// The start of an iteration: the locations of this iteration and instance, the preloads, and
/// the barrier before the kernels.
fn write_iteration_start(o: &mut String, test: &Litmus) {
    let roles = test.threads.len();
    let locations = test.locations.len();
    o.push_str("LOOP:\n\tmad.lo.u32 %lr14, %lr12, %lr9, %lr8;\n");
    // Location j of this iteration and instance: locs + (j × iterations × instances + index) × 4.
    for j in 0..locations {
        let _ = writeln!(
            o,
            "\tmad.lo.u32 %lr16, %lr15, {j}, %lr14;\n\tmul.wide.u32 %ld8, %lr16, 4;\n\
             \tadd.u64 %la{j}, %ld0, %ld8;"
        );
    }
    for j in &test.preload {
        let _ = writeln!(
            o,
            "\tld.global.ca.u32 %lr17, [%la{j}];\n\tadd.u32 %lr13, %lr13, %lr17;"
        );
    }
    // The barrier before the kernels: relaxed, so that it invalidates no L1.
    let _ = writeln!(
        o,
        "\tmul.wide.u32 %ld8, %lr14, 8;\n\tadd.u64 %ld9, %ld3, %ld8;\n\tadd.u64 %ld10, %ld9, 4;\n\
         \tred.relaxed.gpu.global.add.u32 [%ld9], 1;\n\tmov.u32 %lr18, 0;\nSPIN1:\n\
         \tld.relaxed.gpu.global.u32 %lr17, [%ld9];\n\tsetp.ge.u32 %lp1, %lr17, {roles};\n\
         \t@%lp1 bra GO;\n\tadd.u32 %lr18, %lr18, 1;\n\tsetp.lt.u32 %lp2, %lr18, {SPIN_LIMIT};\n\
         \t@%lp2 bra SPIN1;\nGO:"
    );
}

/// The branch to this thread's role, and per role the call of its kernel (after its wait,
/// where the test has one).
fn write_roles(o: &mut String, test: &Litmus) {
    let roles = test.threads.len();
    for role in 0..roles {
        let _ = writeln!(
            o,
            "\tsetp.eq.u32 %lp1, %lr6, {role};\n\t@%lp1 bra ROLE{role};"
        );
    }
    o.push_str("\tbra AFTER;\n");
    for (role, thread) in test.threads.iter().enumerate() {
        let kernel = test.kernel(role);
        let _ = writeln!(o, "ROLE{role}:");
        if let Some((_, at, value)) = test.wait.filter(|(thread, ..)| *thread == role) {
            let _ = writeln!(
                o,
                "\tmov.u32 %lr19, 0;\nWAIT{role}:\n\tld.relaxed.gpu.global.u32 %lr17, [%la{at}];\n\
                 \tsetp.eq.u32 %lp1, %lr17, {value};\n\t@%lp1 bra RUN{role};\n\
                 \tadd.u32 %lr19, %lr19, 1;\n\tsetp.lt.u32 %lp2, %lr19, {WAIT_LIMIT};\n\
                 \t@%lp2 bra WAIT{role};\nRUN{role}:"
            );
        }
        o.push_str("\t{\n");
        let mut args = Vec::new();
        for (i, name) in param_names(kernel).iter().enumerate() {
            let j = test
                .locations
                .iter()
                .position(|l| l == name)
                .expect("a location");
            let _ = writeln!(o, "\t.param .u64 a{i};\n\tst.param.u64 [a{i}], %la{j};");
            args.push(format!("a{i}"));
        }
        let first = kernel.params.len();
        for k in 0..result_names(kernel).len() {
            let slot = test.result_offsets[role] + k;
            let _ = writeln!(
                o,
                "\t.param .u64 a{n};\n\tadd.u64 %ld11, %ld7, {};\n\tst.param.u64 [a{n}], %ld11;",
                slot * 4,
                n = first + k
            );
            args.push(format!("a{}", first + k));
        }
        let _ = writeln!(o, "\tcall {thread}, ({});\n\t}}", args.join(", "));
        o.push_str("\tbra AFTER;\n");
    }
}

/// After the kernels: the other threads release, thread 0 acquires, reads the outcome and
/// counts it, cross-SM or not; then the next iteration.
fn write_count(o: &mut String, test: &Litmus) {
    let roles = test.threads.len();
    // After the kernels: the others release, thread 0 acquires, reads and counts.
    let _ = writeln!(
        o,
        "AFTER:\n\tsetp.ne.u32 %lp1, %lr6, 0;\n\t@%lp1 bra ARRIVE;\n\tmov.u32 %lr18, 0;\nSPIN2:\n\
         \tld.acquire.gpu.global.u32 %lr17, [%ld10];\n\tsetp.ge.u32 %lp1, %lr17, {};\n\
         \t@%lp1 bra COUNT;\n\tadd.u32 %lr18, %lr18, 1;\n\tsetp.lt.u32 %lp2, %lr18, {SPIN_LIMIT};\n\
         \t@%lp2 bra SPIN2;\n\tadd.u64 %ld12, %ld4, {};\n\tred.global.add.u64 [%ld12], 1;\n\
         \tbra NEXT;\nCOUNT:\n\tmov.u32 %lr20, 0;",
        roles - 1,
        2 * keys(test) * 8
    );
    for (i, observed) in test.outcome.iter().enumerate() {
        match observed {
            Observed::Result { index, .. } => {
                let _ = writeln!(
                    o,
                    "\tld.relaxed.gpu.global.u32 %lr17, [%ld7+{}];",
                    index * 4
                );
            }
            Observed::Final { location, .. } => {
                let _ = writeln!(o, "\tld.relaxed.gpu.global.u32 %lr17, [%la{location}];");
            }
        }
        let _ = writeln!(
            o,
            "\tmin.u32 %lr17, %lr17, {VALUE_CLAMP};\n\tshl.b32 %lr17, %lr17, {};\n\
             \tor.b32 %lr20, %lr20, %lr17;",
            2 * i
        );
    }
    // cross: the SMs of the instance's threads are pairwise different.
    let _ = writeln!(
        o,
        "\tmul.lo.u32 %lr11, %lr8, {roles};\n\tmul.wide.u32 %ld13, %lr11, 4;\n\
         \tadd.u64 %ld13, %ld2, %ld13;\n\tmov.u32 %lr21, 1;"
    );
    for a in 0..roles {
        let _ = writeln!(
            o,
            "\tld.relaxed.gpu.global.u32 %lr{}, [%ld13+{}];",
            24 + a.min(7),
            a * 4
        );
    }
    for a in 0..roles {
        for b in a + 1..roles {
            let _ = writeln!(
                o,
                "\tsetp.eq.u32 %lp3, %lr{}, %lr{};\n\t@%lp3 mov.u32 %lr21, 0;",
                24 + a,
                24 + b
            );
        }
    }
    let _ = writeln!(
        o,
        "\tmad.lo.u32 %lr20, %lr21, {}, %lr20;\n\tmul.wide.u32 %ld12, %lr20, 8;\n\
         \tadd.u64 %ld12, %ld4, %ld12;\n\tred.global.add.u64 [%ld12], 1;\n\tbra NEXT;\nARRIVE:\n\
         \tred.release.gpu.global.add.u32 [%ld10], 1;\nNEXT:\n\tadd.u32 %lr12, %lr12, 1;\n\
         \tsetp.lt.u32 %lp1, %lr12, %lr0;\n\t@%lp1 bra LOOP;\n\
         \tsetp.eq.u32 %lp1, %lr13, 0x7f4a7c15;\n\t@%lp1 st.global.u32 [%ld5], %lr13;\n\tret;",
        keys(test)
    );
}

/// The stress blocks: read-modify-writes of their own words of `stress` all along.
fn write_stress(o: &mut String) {
    // Stress: STRESS_ROUNDS read-modify-writes per iteration, each thread on its own lines.
    let _ = writeln!(
        o,
        "STRESS:\n\tmad.lo.u32 %lr16, %lr1, %lr4, %lr3;\n\tmul.lo.u32 %lr16, %lr16, 4099;\n\
         \tmul.lo.u32 %lr18, %lr0, {STRESS_ROUNDS};\n\tmov.u32 %lr19, 0;\nSLOOP:\n\
         \tmad.lo.u32 %lr17, %lr19, 131, %lr16;\n\tand.b32 %lr17, %lr17, %lr23;\n\
         \tmul.wide.u32 %ld8, %lr17, 4;\n\tadd.u64 %ld8, %ld14, %ld8;\n\
         \tld.global.cg.u32 %lr20, [%ld8];\n\tadd.u32 %lr20, %lr20, 1;\n\
         \tst.global.cg.u32 [%ld8], %lr20;\n\tadd.u32 %lr19, %lr19, 1;\n\
         \tsetp.lt.u32 %lp0, %lr19, %lr18;\n\t@%lp0 bra SLOOP;\n\tret;\n}}"
    );
}
