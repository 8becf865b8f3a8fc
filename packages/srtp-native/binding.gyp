{
  "targets": [
    {
      "target_name": "srtp_native",
      "sources": ["src/srtp_context.c", "src/srtp_sealer.c", "src/srtp_opener.c", "src/datagram_sender.c"],
      "cflags": ["-O2", "-Wall", "-Wno-deprecated-declarations"]
    }
  ]
}
